import type { Clock } from './clock';
import type { EventBus } from './events';
import type { Ids } from './ids';
import type { Runtime } from './runtime';
import type { Storage } from './storage';

export type { Db, QueryResult } from './db';
export type { Clock } from './clock';
export type { Ids } from './ids';
export type { EventBus, DomainEvent, EventChannel } from './events';
export type { Storage, FallbackData } from './storage';
export type { Runtime } from './runtime';

/** Everything a use case may touch, passed in by the caller (handler, runner, test). */
export interface Deps {
  storage: Storage;
  clock: Clock;
  ids: Ids;
  events: EventBus;
  runtime: Runtime;
}
