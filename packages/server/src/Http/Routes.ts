import { declaredEndpoints, type Scope, Uuid } from "@bizops/domain"
import { Schema } from "effect"
import type { HttpApi, HttpApiGroup } from "effect/http-api"

/** A route the server answers, as it was declared (path with `:param` segments). */
export interface MatchedRoute {
  readonly method: string
  readonly path: string
  /** The scope the endpoint declares (HttpApi endpoints); undefined when it declares none. */
  readonly scope: Scope | undefined
  /** Whether it is an endpoint of the JSON HttpApi (JSON bodies, idempotency, scopes), not an extra route. */
  readonly api: boolean
}

export interface RouteTable {
  /**
   * The route that answers a method and a canonical path, matched as the router matches (case-sensitive,
   * literal segments exactly, a parameter any non-empty segment), or undefined.
   */
  readonly match: (method: string, pathname: string) => MatchedRoute | undefined
  /** The methods that some route answers at this path, for 405 and `Allow`. */
  readonly allowedMethods: (pathname: string) => ReadonlyArray<string>
  /** Whether a path names a record by a malformed id (a path parameter that is not a UUID). */
  readonly hasMalformedId: (pathname: string) => boolean
}

const isUuid = Schema.is(Uuid)

interface Route extends MatchedRoute {
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

/** The routes of an HttpApi, with the scope each endpoint declares, plus the extra routes the server answers. */
export const routeTable = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extra: ReadonlyArray<{ readonly method: string; readonly path: string }>
): RouteTable => {
  const routes: Array<Route> = [
    ...extra.map((r) => ({ method: r.method, path: r.path, segments: split(r.path), scope: undefined, api: false })),
    ...declaredEndpoints(api).map((e) => ({ ...e, segments: split(e.path), api: true }))
  ]
  const methodsAt = (segments: ReadonlyArray<string>) =>
    Array.from(new Set(routes.filter((r) => matches(r, segments)).map((r) => r.method)))
  return {
    match: (method, pathname) => {
      const segments = split(pathname)
      return routes.find((r) => r.method === method && matches(r, segments))
    },
    allowedMethods: (pathname) => methodsAt(split(pathname)),
    hasMalformedId: (pathname) => {
      const segments = split(pathname)
      return routes.some((r) =>
        matches(r, segments) && r.segments.some((s, i) => s.startsWith(":") && !isUuid(safeDecode(segments[i])))
      )
    }
  }
}
