import { HttpApi, type HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"

export interface RouteTable {
  /** The methods that some route answers at this path, for 405 and `Allow`. */
  readonly allowedMethods: (pathname: string) => ReadonlyArray<string>
  /** Whether a path names a record by a malformed id (a path parameter that is not a UUID). */
  readonly hasMalformedId: (pathname: string) => boolean
}

const isUuid = Schema.is(Schema.UUID)

interface Route {
  readonly method: string
  readonly segments: ReadonlyArray<string>
}

const matches = (route: Route, segments: ReadonlyArray<string>) =>
  route.segments.length === segments.length &&
  route.segments.every((s, i) => s.startsWith(":") ? segments[i].length > 0 : s === segments[i])

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const split = (path: string) => path.split("/").filter((s) => s.length > 0)

/** The routes of an HttpApi, plus the extra ones the server answers (OpenAPI, docs). */
export const routeTable = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  extra: ReadonlyArray<{ readonly method: string; readonly path: string }>
): RouteTable => {
  const routes: Array<Route> = extra.map((r) => ({ method: r.method, segments: split(r.path) }))
  HttpApiReflect(api, (method, path) => routes.push({ method, segments: split(path) }))
  const methodsAt = (segments: ReadonlyArray<string>) =>
    Array.from(new Set(routes.filter((r) => matches(r, segments)).map((r) => r.method)))
  return {
    allowedMethods: (pathname) => methodsAt(split(pathname)),
    hasMalformedId: (pathname) => {
      const segments = split(pathname)
      return routes.some((r) =>
        matches(r, segments) && r.segments.some((s, i) => s.startsWith(":") && !isUuid(safeDecode(segments[i])))
      )
    }
  }
}

const HttpApiReflect = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  onRoute: (method: string, path: string) => void
) =>
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => onRoute(endpoint.method, endpoint.path)
  })
