import { Api } from "@bizops/domain"
import { eventCatalogEntries } from "@bizops/webhooks"
import { OpenApi } from "effect/http-api"

/**
 * Components keep their names without Effect 4's `Encoded` suffix (`Client`, not `ClientEncoded`), as
 * the webhook catalog's payload schemas do. One object, so that `fromApi` computes the document once.
 */
const options: OpenApi.FromApiOptions = { referencePolicy: ({ identifier }) => identifier?.replace(/Encoded$/, "") }

/**
 * The OpenAPI document: generated from the HttpApi definition, plus the outbound events of the
 * webhooks package's catalog as OpenAPI 3.1 `webhooks` (the catalog is their one source).
 */
export const openApiDocument = (): Record<string, unknown> => {
  const spec = OpenApi.fromApi(Api, options)
  const schemas: Record<string, unknown> = { ...spec.components.schemas }
  // A payload's JSON Schema keeps its definitions under $defs; in the document they are components.
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist)
    if (node === null || typeof node !== "object") return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "$schema") continue
      if (key === "$defs" && value !== null && typeof value === "object") {
        for (const [name, definition] of Object.entries(value)) if (!(name in schemas)) schemas[name] = hoist(definition)
        continue
      }
      out[key] = key === "$ref" && typeof value === "string" ? value.replace("#/$defs/", "#/components/schemas/") : hoist(value)
    }
    return out
  }
  const webhooks = Object.fromEntries(
    eventCatalogEntries().map((event) => [
      event.name,
      {
        post: {
          summary: event.name,
          description: event.description,
          requestBody: { required: true, content: { "application/json": { schema: hoist(event.payloadSchema) } } },
          responses: { "2XX": { description: "Received. Anything else (or no answer in 15 s) is retried." } }
        }
      }
    ])
  )
  return { ...spec, components: { ...spec.components, schemas }, webhooks }
}
