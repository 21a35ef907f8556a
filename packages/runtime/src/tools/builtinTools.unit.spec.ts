import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runBuiltinTool } from './builtinTools.js';

describe('built-in demo tools', () => {
  it('are deterministic: the same arguments give the same result', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('weather', 'lookup_order', 'calculator', 'unknown'),
        fc.jsonValue(),
        (name, args) => {
          const text = JSON.stringify(args);
          expect(runBuiltinTool(name, text)).toEqual(runBuiltinTool(name, text));
        },
      ),
    );
  });

  it('never throw, whatever the argument text', () => {
    fc.assert(
      fc.property(fc.constantFrom('weather', 'lookup_order', 'calculator'), fc.string(), (name, text) => {
        const outcome = runBuiltinTool(name, text);
        expect(typeof outcome.ok).toBe('boolean');
      }),
    );
  });

  it('answer with demo data or a coded error', () => {
    const weather = runBuiltinTool('weather', '{"city":"Paris"}');
    expect(weather).toMatchObject({ ok: true, result: { city: 'Paris', demo: true } });
    // The city's case does not change the forecast.
    const lower = runBuiltinTool('weather', '{"city":"paris"}');
    expect(lower.ok && weather.ok && lower.result.conditions === weather.result.conditions).toBe(true);
    expect(runBuiltinTool('weather', '{}')).toEqual({ ok: false, error: 'missing_argument: city' });
    expect(runBuiltinTool('weather', 'not json')).toEqual({
      ok: false,
      error: 'invalid_arguments: not JSON',
    });
    expect(runBuiltinTool('weather', '[1]')).toEqual({
      ok: false,
      error: 'invalid_arguments: not an object',
    });
    expect(runBuiltinTool('calculator', '{"a":6,"b":7,"op":"multiply"}')).toEqual({
      ok: true,
      result: { value: 42 },
    });
    expect(runBuiltinTool('calculator', '{"a":1,"b":0,"op":"divide"}')).toEqual({
      ok: false,
      error: 'invalid_operation',
    });
    expect(runBuiltinTool('toString', '{}')).toEqual({ ok: false, error: 'tool_not_implemented' });
    expect(runBuiltinTool('search', '{}')).toEqual({ ok: false, error: 'tool_not_implemented' });
  });
});
