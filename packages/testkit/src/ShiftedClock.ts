import { Clock, Duration, Effect } from "effect"

/** The real clock (Clock's default); a ShiftedClock sleeps and measures elapsed time on it. */
const live: Clock.Clock = Clock.Clock.defaultValue()

/**
 * A clock that runs like the real one, plus an offset that a test moves forward: the server under test
 * reads it (Effect's Clock service), so a test jumps an hour instead of sleeping through it. Only the
 * wall time moves: the monotonic time (elapsed durations) and sleeps are the real clock's.
 */
export class ShiftedClock implements Clock.Clock {
  private offsetMillis = 0

  /** Moves the clock forward. */
  advance(duration: Duration.Input): Effect.Effect<void> {
    return Effect.sync(() => {
      this.offsetMillis += Duration.toMillis(duration)
    })
  }

  currentTimeMillisUnsafe(): number {
    return Date.now() + this.offsetMillis
  }

  currentTimeNanosUnsafe(): bigint {
    return BigInt(this.currentTimeMillisUnsafe()) * 1_000_000n
  }

  get currentTimeMillis(): Effect.Effect<number> {
    return Effect.sync(() => this.currentTimeMillisUnsafe())
  }

  get currentTimeNanos(): Effect.Effect<bigint> {
    return Effect.sync(() => this.currentTimeNanosUnsafe())
  }

  monotonicTimeNanosUnsafe(): bigint {
    return live.monotonicTimeNanosUnsafe()
  }

  get monotonicTimeNanos(): Effect.Effect<bigint> {
    return live.monotonicTimeNanos
  }

  sleep(duration: Duration.Duration): Effect.Effect<void> {
    return live.sleep(duration)
  }
}
