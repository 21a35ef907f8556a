import type { JsonValue } from '@parley/events';
import type { AgentGuardrails } from '../agents/guardrailSchema.js';
import type { LlmResponse } from '../providers/types.js';
import { countByKind, detectPii, redactPii } from './pii.js';

export type GuardrailStage = 'input' | 'output';
export type GuardrailName = 'blocked_terms' | 'pii' | 'model_check' | 'max_reply_chars';

/** One evaluation: a `guardrail_eval` trace event (status `blocked` when it blocked or changed the text). */
export interface GuardrailEvaluation {
  name: GuardrailName;
  stage: GuardrailStage;
  status: 'ok' | 'blocked';
  startedAt: Date;
  durationMs: number;
  attributes: Record<string, JsonValue>;
}

export interface GuardrailPass {
  /** The text after the checks (redacted, cut); the blocked reply's place when `blocked`. */
  text: string;
  blocked: boolean;
  evaluations: GuardrailEvaluation[];
}

/** Asks the guardrail's own model; the caller records the call (ledger source `guardrails`). */
export type ModelCheckCall = (messages: { system: string; user: string }) => Promise<LlmResponse>;

export const MODEL_CHECK_PROMPT = (policy: string): string =>
  'You check one message of a conversation against a policy. Answer ALLOW when the message is ' +
  'acceptable under the policy and BLOCK when it is not, as the first word of your answer, then ' +
  `one short sentence saying why.\n\nPolicy:\n${policy}`;

/** The verdict of a model check's answer: its first word (after a provider's own prefix). */
export function readVerdict(text: string): 'allow' | 'block' | null {
  const first = /\b(ALLOW|BLOCK)\b/.exec(text.replace(/^\s*\([^)]*\)\s*/, '').slice(0, 40));
  return first === null ? null : first[1] === 'BLOCK' ? 'block' : 'allow';
}

interface Clock {
  now: () => Date;
}

function timed(clock: Clock) {
  const startedAt = clock.now();
  const t0 = performance.now();
  return { startedAt, elapsed: () => Math.round(performance.now() - t0) };
}

/**
 * The input checks, in order: blocked terms, PII (redact or block), the model check. The first
 * block stops them (later checks are not evaluated, so they are not counted).
 */
export async function checkInput(
  guardrails: AgentGuardrails,
  text: string,
  clock: Clock,
  modelCheck?: ModelCheckCall,
): Promise<GuardrailPass> {
  const evaluations: GuardrailEvaluation[] = [];
  let current = text;
  const terms = guardrails.blockedTerms ?? [];
  if (terms.length > 0) {
    const t = timed(clock);
    const lower = current.toLowerCase();
    const hit = terms.some((term) => lower.includes(term.toLowerCase()));
    evaluations.push({
      name: 'blocked_terms',
      stage: 'input',
      status: hit ? 'blocked' : 'ok',
      startedAt: t.startedAt,
      durationMs: t.elapsed(),
      attributes: { stage: 'input', terms: terms.length },
    });
    if (hit) return { text: current, blocked: true, evaluations };
  }
  const pii = piiCheck(guardrails, 'input', current, clock);
  if (pii !== null) {
    evaluations.push(pii.evaluation);
    // Blocked or not, what was found is not kept: the recorded message is the redacted text.
    current = pii.text;
    if (pii.blocked) return { text: current, blocked: true, evaluations };
  }
  const model = await modelCheckOf(guardrails, 'input', current, clock, modelCheck);
  if (model !== null) {
    evaluations.push(model);
    if (model.status === 'blocked') return { text: current, blocked: true, evaluations };
  }
  return { text: current, blocked: false, evaluations };
}

/** The output checks, in order: PII (redact or block), the model check, the reply's length (cut). */
export async function checkOutput(
  guardrails: AgentGuardrails,
  text: string,
  clock: Clock,
  modelCheck?: ModelCheckCall,
): Promise<GuardrailPass> {
  const evaluations: GuardrailEvaluation[] = [];
  let current = text;
  const pii = piiCheck(guardrails, 'output', current, clock);
  if (pii !== null) {
    evaluations.push(pii.evaluation);
    if (pii.blocked) return { text: current, blocked: true, evaluations };
    current = pii.text;
  }
  const model = await modelCheckOf(guardrails, 'output', current, clock, modelCheck);
  if (model !== null) {
    evaluations.push(model);
    if (model.status === 'blocked') return { text: current, blocked: true, evaluations };
  }
  const max = guardrails.maxReplyChars;
  if (max !== undefined) {
    const t = timed(clock);
    const over = current.length > max;
    evaluations.push({
      name: 'max_reply_chars',
      stage: 'output',
      status: over ? 'blocked' : 'ok',
      startedAt: t.startedAt,
      durationMs: t.elapsed(),
      attributes: { stage: 'output', limit: max, length: current.length },
    });
    if (over) current = current.slice(0, max);
  }
  return { text: current, blocked: false, evaluations };
}

/** Whether the output checks may change the text after the model wrote it (so it is not streamed as written). */
export const outputMayChange = (guardrails: AgentGuardrails): boolean =>
  (guardrails.pii !== undefined && guardrails.pii.output !== 'off') ||
  (guardrails.model?.stages.includes('output') ?? false);

function piiCheck(guardrails: AgentGuardrails, stage: GuardrailStage, text: string, clock: Clock) {
  const config = guardrails.pii;
  const action = config === undefined ? 'off' : config[stage];
  if (config === undefined || action === 'off') return null;
  const t = timed(clock);
  const findings = detectPii(text, config.kinds);
  const found = findings.length > 0;
  const evaluation: GuardrailEvaluation = {
    name: 'pii',
    stage,
    status: found ? 'blocked' : 'ok',
    startedAt: t.startedAt,
    durationMs: t.elapsed(),
    attributes: { stage, action, findings: countByKind(findings), ...(found ? { outcome: action } : {}) },
  };
  return {
    evaluation,
    blocked: found && action === 'block',
    text: found ? redactPii(text, findings) : text,
  };
}

async function modelCheckOf(
  guardrails: AgentGuardrails,
  stage: GuardrailStage,
  text: string,
  clock: Clock,
  call: ModelCheckCall | undefined,
): Promise<GuardrailEvaluation | null> {
  const config = guardrails.model;
  if (config === undefined || !config.stages.includes(stage) || call === undefined) return null;
  const t = timed(clock);
  const response = await call({
    system: MODEL_CHECK_PROMPT(config.policy),
    user: `${stage} message:\n${text}`,
  });
  const verdict = response.finishReason === 'error' ? null : readVerdict(response.text);
  // No verdict (the call failed, or the answer says neither): `failOpen` decides.
  const blocked = verdict === null ? !config.failOpen : verdict === 'block';
  return {
    name: 'model_check',
    stage,
    status: blocked ? 'blocked' : 'ok',
    startedAt: t.startedAt,
    durationMs: t.elapsed(),
    attributes: {
      stage,
      provider: config.provider,
      model: config.model,
      verdict: verdict ?? (response.finishReason === 'error' ? 'check_failed' : 'unreadable'),
    },
  };
}
