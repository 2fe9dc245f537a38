import { Clock, Duration, Effect } from "effect"

/**
 * A clock that runs like the real one, plus an offset that a test moves forward: the server under test
 * reads it (Effect's Clock service), so a test jumps an hour instead of sleeping through it.
 */
export class ShiftedClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  private offsetMillis = 0

  /** Moves the clock forward. */
  advance(duration: Duration.DurationInput): Effect.Effect<void> {
    return Effect.sync(() => {
      this.offsetMillis += Duration.toMillis(duration)
    })
  }

  unsafeCurrentTimeMillis(): number {
    return Date.now() + this.offsetMillis
  }

  unsafeCurrentTimeNanos(): bigint {
    return BigInt(this.unsafeCurrentTimeMillis()) * 1_000_000n
  }

  get currentTimeMillis(): Effect.Effect<number> {
    return Effect.sync(() => this.unsafeCurrentTimeMillis())
  }

  get currentTimeNanos(): Effect.Effect<bigint> {
    return Effect.sync(() => this.unsafeCurrentTimeNanos())
  }

  sleep(duration: Duration.Duration): Effect.Effect<void> {
    return Effect.sleep(duration).pipe(Effect.withClock(Clock.make()))
  }
}
