/**
 * A property test on fast-check arbitraries, with the shape of Effect 3's `it.prop`:
 * `prop(name, [arbA, arbB], ([a, b]) => ..., { fastCheck: { numRuns } })`. Effect 4's `it.prop`
 * takes Schemas or `effect/Arbitrary` values instead; the rules' tests build their inputs with
 * fast-check, so they go through this.
 */
import * as fc from "fast-check"
import { it } from "vitest"

export interface PropOptions {
  readonly fastCheck?: fc.Parameters<unknown> | undefined
  readonly timeout?: number | undefined
}

export const prop = <Ts extends Array<unknown>>(
  name: string,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  body: (values: Ts) => boolean | void,
  options?: PropOptions
): void => {
  it(name, () => {
    fc.assert(
      fc.property(fc.tuple<Ts>(...arbitraries), body),
      options?.fastCheck
    )
  }, options?.timeout)
}
