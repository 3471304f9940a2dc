import { randomUUID } from 'node:crypto';

export interface Ids {
  uuid(): string;
}

export const randomIds: Ids = { uuid: () => randomUUID() };
