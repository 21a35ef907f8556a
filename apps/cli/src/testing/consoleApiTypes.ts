import { compile, type JSONSchema } from 'json-schema-to-typescript';

/**
 * The operations of `/openapi.json` the console reads, by operationId: for each, the type of its
 * 2xx JSON answer is generated into apps/console/src/apiTypes.generated.ts, named after the
 * operation (`listSessionSummaries` → `ListSessionSummariesResponse`).
 */
export const CONSOLE_OPERATIONS = [
  'getMe',
  'listSessionSummaries',
  'listSessionMessages',
  'listSessionTraces',
  'getSessionMetrics',
  'getSessionAnalysis',
  'getSessionRecordings',
  'listLlmLedger',
  'llmLedgerStats',
  'listProjections',
  'getProjectionRebuild',
] as const;

export const CONSOLE_API_TYPES_PATH = 'apps/console/src/apiTypes.generated.ts';

interface Operation {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const HEADER = `/* Generated from /openapi.json by apps/cli/src/testing/consoleApiTypes.ts: do not edit.
 * Regenerate with \`npm run console:api-types\`; apps/cli/src/consoleApiTypes.int.spec.ts fails when
 * this file and the API's document differ. */`;

function answerOf(document: { paths: Record<string, Record<string, Operation>> }, operationId: string) {
  for (const methods of Object.values(document.paths)) {
    for (const operation of Object.values(methods)) {
      if (operation.operationId !== operationId) continue;
      const status = Object.keys(operation.responses ?? {}).find((s) => s.startsWith('2'));
      const schema =
        status === undefined
          ? undefined
          : operation.responses?.[status]?.content?.['application/json']?.schema;
      if (schema === undefined) throw new Error(`${operationId}: no 2xx application/json answer`);
      return schema as JSONSchema;
    }
  }
  throw new Error(`${operationId}: not in the document`);
}

/** The TypeScript of the console's answers, from the API's OpenAPI document. Deterministic. */
export async function consoleApiTypes(document: { paths: Record<string, Record<string, Operation>> }) {
  const parts = [HEADER];
  for (const operationId of CONSOLE_OPERATIONS) {
    const name = `${operationId[0]?.toUpperCase()}${operationId.slice(1)}Response`;
    const schema = { ...answerOf(document, operationId), title: name };
    parts.push(
      await compile(schema, name, {
        bannerComment: '',
        additionalProperties: false,
        declareExternallyReferenced: true,
        format: true,
        strictIndexSignatures: true,
        style: { singleQuote: true, printWidth: 110 },
      }),
    );
  }
  return `${parts.join('\n').trim()}\n`;
}
