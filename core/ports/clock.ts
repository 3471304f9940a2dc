/** Time is injected so that time rules are tested by moving a clock, never by sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
