import type { Vitest } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { it, type TestOptions } from "vitest"

/**
 * Property tests over fast-check arbitraries. @effect/vitest 4's `it.prop` and `it.effect.prop` take
 * Schemas or `effect/Arbitrary` values only (Effect's own generator); these keep Effect 3's shape
 * (`[arbitraries]`, the values as one tuple, `{ fastCheck: { numRuns } }`) for tests whose inputs are
 * built with fast-check's combinators.
 */
export type PropOptions<Ts> = TestOptions & { readonly fastCheck?: fc.Parameters<[Ts]> }

const testOptions = <Ts>(options: PropOptions<Ts> | undefined): TestOptions => {
  if (options === undefined) return {}
  const { fastCheck: _, ...rest } = options
  return rest
}

/** A synchronous property: `self` fails it by throwing (an assertion) or by returning false. */
export const prop = <Ts extends [unknown, ...Array<unknown>]>(
  name: string,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  self: (values: Ts) => boolean | void,
  options?: PropOptions<Ts>
) =>
  it(name, testOptions(options), () => {
    fc.assert(fc.property(fc.tuple<Ts>(...arbitraries), (values) => self(values)), options?.fastCheck)
  })

/**
 * An Effect property, registered on the `it` of a `layer(...)` block (or the top-level one): each run is
 * an Effect with the block's services and a scope of its own; a failure or a defect falsifies it.
 */
export const effectProp = <R, Ts extends [unknown, ...Array<unknown>], E>(
  it: { readonly effect: Vitest.Tester<R> },
  name: string,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  self: (values: Ts) => Effect.Effect<unknown, E, R>,
  options?: PropOptions<Ts>
) =>
  it.effect(
    name,
    () =>
      Effect.flatMap(Effect.context<R>(), (context) =>
        Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.tuple<Ts>(...arbitraries), (values) =>
              Effect.runPromiseWith(context)(Effect.scoped(self(values))).then((result) => result !== false)),
            options?.fastCheck
          )
        )),
    testOptions(options)
  )
