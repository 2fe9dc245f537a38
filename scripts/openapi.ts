/** Prints the OpenAPI document of the API, generated from the HttpApi definition: `npm run -s openapi > openapi.json`. */
import { OpenApi } from "@effect/platform"
import { Api } from "@bizops/domain"

process.stdout.write(JSON.stringify(OpenApi.fromApi(Api), null, 2) + "\n")
