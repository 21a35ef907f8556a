export { createTestDatabase, type TestDatabase } from './database.js';
export { ensureTestPostgres, type TestPostgres } from './postgres.js';
