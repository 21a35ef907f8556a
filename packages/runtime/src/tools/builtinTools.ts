import { createHash } from 'node:crypto';

/**
 * Built-in demo tools: deterministic (the same arguments always give the same result), offline,
 * and labelled as demo data. An agent offers one by listing a tool of that name whose
 * implementation is `builtin` (or absent); a `builtin` tool of another name answers
 * `tool_not_implemented`.
 */
export type ToolOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: string };

type ToolImpl = (args: Record<string, unknown>) => ToolOutcome;

const pick = <T>(seed: string, options: readonly T[]): T => {
  const n = createHash('sha256').update(seed).digest().readUInt32BE(0);
  return options[n % options.length]!;
};
const number = (seed: string, min: number, max: number): number => {
  const n = createHash('sha256').update(`n:${seed}`).digest().readUInt32BE(0);
  return min + (n % (max - min + 1));
};
const stringArg = (args: Record<string, unknown>, key: string): string | undefined => {
  const value = args[key];
  return typeof value === 'string' && value.trim().length > 0 ? value.trim().slice(0, 200) : undefined;
};

export const BUILTIN_TOOLS: Readonly<Record<string, ToolImpl>> = Object.freeze({
  weather(args) {
    const city = stringArg(args, 'city') ?? stringArg(args, 'location');
    if (city === undefined) return { ok: false, error: 'missing_argument: city' };
    const key = city.toLowerCase();
    return {
      ok: true,
      result: {
        city,
        conditions: pick(key, ['sunny', 'cloudy', 'rain', 'windy', 'snow', 'fog']),
        temperatureC: number(key, -5, 32),
        demo: true,
      },
    };
  },
  lookup_order(args) {
    const orderId = stringArg(args, 'orderId') ?? stringArg(args, 'order_id');
    if (orderId === undefined) return { ok: false, error: 'missing_argument: orderId' };
    return {
      ok: true,
      result: {
        orderId,
        status: pick(orderId, ['processing', 'shipped', 'delivered', 'cancelled']),
        items: number(orderId, 1, 5),
        demo: true,
      },
    };
  },
  calculator(args) {
    const a = args.a;
    const b = args.b;
    const op = args.op ?? args.operation;
    if (typeof a !== 'number' || typeof b !== 'number') return { ok: false, error: 'missing_argument: a, b' };
    const results: Record<string, number> = { add: a + b, subtract: a - b, multiply: a * b, divide: a / b };
    const value = typeof op === 'string' ? results[op] : undefined;
    if (value === undefined || !Number.isFinite(value)) return { ok: false, error: 'invalid_operation' };
    return { ok: true, result: { value } };
  },
});

/** The model's argument text as an object, or why it is not one. */
export function parseArguments(
  argumentsJson: string,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  let args: unknown;
  try {
    args = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
  } catch {
    return { ok: false, error: 'invalid_arguments: not JSON' };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { ok: false, error: 'invalid_arguments: not an object' };
  }
  return { ok: true, args: args as Record<string, unknown> };
}

/** Runs a built-in tool on the model's argument text (JSON; invalid JSON is an error outcome). */
export function runBuiltinTool(name: string, argumentsJson: string): ToolOutcome {
  const impl = Object.hasOwn(BUILTIN_TOOLS, name) ? BUILTIN_TOOLS[name] : undefined;
  if (impl === undefined) return { ok: false, error: 'tool_not_implemented' };
  const parsed = parseArguments(argumentsJson);
  return parsed.ok ? impl(parsed.args) : parsed;
}
