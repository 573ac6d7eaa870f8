// Time as a dependency, so the worker's schedules and the tests can move it without sleeping.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
