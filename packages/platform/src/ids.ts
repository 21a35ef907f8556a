import { randomUUID } from 'node:crypto';

/** A random UUID (v4), the form of every event id. */
export const newId = (): string => randomUUID();
