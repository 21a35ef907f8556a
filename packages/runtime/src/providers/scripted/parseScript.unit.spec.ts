import { CONTAINMENT_TYPES } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseScript, SCRIPT_END_TYPES, SCRIPT_KEYWORDS } from './parseScript.js';

describe('parseScript', () => {
  it('reads every keyword', () => {
    const script = parseScript(
      [
        'Hello there',
        '/tool weather city=Paris days=3',
        '/tool lookup {"id": 7}',
        '/tool search cheap flights',
        '/tool clock',
        '/handoff billing customer asked about invoices',
        '/end contained_partial resolved half',
        '/escalate angry customer',
        '/buttons Yes | No',
        '/select Plan: Basic | Pro',
        '/input Your email',
        '/media https://files.example/a.png the chart',
        '/error 429',
        '/length',
        '/reason 120',
        '/delay 5',
        '/say exact words',
      ].join('\n'),
    );
    expect(script.problems).toEqual([]);
    expect(script.text).toBe('Hello there');
    expect(script.commands).toEqual([
      { keyword: 'tool', name: 'weather', arguments: { city: 'Paris', days: '3' } },
      { keyword: 'tool', name: 'lookup', arguments: { id: 7 } },
      { keyword: 'tool', name: 'search', arguments: { input: 'cheap flights' } },
      { keyword: 'tool', name: 'clock', arguments: {} },
      { keyword: 'handoff', agentName: 'billing', reason: 'customer asked about invoices' },
      { keyword: 'end', containmentType: 'contained_partial', reason: 'resolved half' },
      { keyword: 'end', containmentType: 'escalated', reason: 'angry customer' },
      { keyword: 'buttons', labels: ['Yes', 'No'] },
      { keyword: 'select', label: 'Plan', options: ['Basic', 'Pro'] },
      { keyword: 'input', label: 'Your email' },
      { keyword: 'media', url: 'https://files.example/a.png', caption: 'the chart' },
      { keyword: 'error', statusCode: 429 },
      { keyword: 'length' },
      { keyword: 'reason', tokens: 120 },
      { keyword: 'delay', ms: 5 },
      { keyword: 'say', text: 'exact words' },
    ]);
    const used = new Set<string>(script.commands.map((c) => c.keyword));
    expect(SCRIPT_KEYWORDS.filter((k) => !used.has(k) && k !== 'escalate')).toEqual([]);
  });

  it('commands may share one line; text before the first is the plain text', () => {
    const script = parseScript('check the weather /tool weather Paris /buttons Thanks | More');
    expect(script.text).toBe('check the weather');
    expect(script.commands).toEqual([
      { keyword: 'tool', name: 'weather', arguments: { input: 'Paris' } },
      { keyword: 'buttons', labels: ['Thanks', 'More'] },
    ]);
  });

  it('the words after a one-word command (/error, /length, /reason, /delay) are plain text', () => {
    const script = parseScript('think /reason 300 very hard /length please');
    expect(script.commands).toEqual([{ keyword: 'reason', tokens: 300 }, { keyword: 'length' }]);
    expect(script.text).toBe('think very hard please');
  });

  it('accepts the outcomes of end_conversation and escalated after /end, and nothing else', () => {
    for (const type of SCRIPT_END_TYPES) {
      expect(parseScript(`/end ${type}`).commands).toEqual([{ keyword: 'end', containmentType: type }]);
    }
    for (const type of CONTAINMENT_TYPES.filter(
      (t) => !(SCRIPT_END_TYPES as readonly string[]).includes(t),
    )) {
      expect(parseScript(`/end ${type}`).problems).toHaveLength(1);
    }
  });

  it('reports commands it cannot read, and leaves unknown /words and slashes inside words as text', () => {
    const script = parseScript('/end maybe /error 200 /delay 99999 /select nothing /tool');
    expect(script.commands).toEqual([]);
    expect(script.problems).toHaveLength(5);
    expect(script.problems[0]).toMatch(/^"\/end maybe": expected one of contained/);
    expect(parseScript('and/or /unknown http://x/end /endless').commands).toEqual([]);
    expect(parseScript('and/or /unknown http://x/end /endless').text).toBe(
      'and/or /unknown http://x/end /endless',
    );
  });

  it('never throws; text without a keyword is all plain text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (message) => {
        const script = parseScript(message);
        expect(script.commands.length + script.problems.length).toBeLessThanOrEqual(
          message.split('/').length - 1,
        );
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[^/]{0,100}$/), (message) => {
        const script = parseScript(message);
        expect(script.commands).toEqual([]);
        expect(script.text).toBe(message.replace(/\s+/g, ' ').trim());
      }),
    );
  });
});
