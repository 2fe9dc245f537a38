/** Prints the OpenAPI document (the one GET /api/v1/openapi.json serves): `npm run -s openapi > openapi.json`. */
import { openApiDocument } from "@bizops/server"

process.stdout.write(JSON.stringify(openApiDocument(), null, 2) + "\n")
