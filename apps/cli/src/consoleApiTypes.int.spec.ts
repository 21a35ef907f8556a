import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_API_TYPES_PATH, consoleApiTypes } from './testing/consoleApiTypes.js';
import { type InProcessParley, startInProcessParley } from './testing/inProcessParley.js';

const committed = fileURLToPath(new URL(`../../../${CONSOLE_API_TYPES_PATH}`, import.meta.url));

/**
 * The console's API types are generated from the document of the API as `parley start` composes it.
 * `npm run console:api-types` (UPDATE_CONSOLE_API_TYPES=1) writes them; otherwise this fails when an
 * answer the console reads changed and the committed types did not follow.
 */
describe('the console API types', () => {
  let parley: InProcessParley;
  beforeAll(async () => {
    parley = await startInProcessParley();
  });
  afterAll(() => parley?.close());

  it('are what /openapi.json generates', async () => {
    const document = (await parley.app.inject('/openapi.json')).json();
    const generated = await consoleApiTypes(document);
    if (process.env.UPDATE_CONSOLE_API_TYPES === '1') await writeFile(committed, generated);
    expect(await readFile(committed, 'utf8')).toBe(generated);
  });

  it('would catch a drift', async () => {
    const document = (await parley.app.inject('/openapi.json')).json();
    const answer = document.paths['/api/v1/me'].get.responses['200'].content['application/json'].schema;
    answer.properties.drifted = { type: 'string' };
    expect(await consoleApiTypes(document)).not.toBe(await readFile(committed, 'utf8'));
  });
});
