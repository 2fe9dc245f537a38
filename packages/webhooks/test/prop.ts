/**
 * Property tests on fast-check arbitraries, in the shape of Effect 3's `it.prop` (@effect/vitest 4's takes
 * Schemas and Effect's own generator instead): `prop(name, [arb, ...], ([a, ...]) => ..., { fastCheck: { numRuns } })`.
 * The body fails the property by throwing (a failed `expect`) or returning false; `fc.pre` discards a case.
 * A copy of `packages/domain/test/prop.ts`.
 */
import * as fc from "fast-check"
import { it, type TestOptions } from "vitest"

export interface PropOptions extends TestOptions {
  /** fast-check's parameters (`numRuns`, `seed`, ...). */
  readonly fastCheck?: fc.Parameters<unknown>
}

export const prop = <Ts extends [unknown, ...Array<unknown>]>(
  name: string,
  arbitraries: { readonly [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  body: (values: Ts) => boolean | void,
  options?: number | PropOptions
): void => {
  const { fastCheck, ...testOptions }: PropOptions = typeof options === "number" ? { timeout: options } : options ?? {}
  it(name, testOptions, () => {
    fc.assert(fc.property(fc.tuple<Ts>(...arbitraries), (values) => body(values)), fastCheck)
  })
}
