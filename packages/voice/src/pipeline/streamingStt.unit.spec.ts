import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { processCallRecognizer, RecognizerPool, Upsampler } from './streamingStt.js';

describe('Upsampler (8 kHz → 16 kHz, frame by frame)', () => {
  it('doubles the samples, interpolating, the same however the input is cut', () => {
    const whole = (xs: number[]) => {
      const u = new Upsampler();
      return [...u.push(Int16Array.from(xs)), ...u.flush()];
    };
    expect(whole([0, 100, 200])).toEqual([0, 50, 100, 150, 200, 200]);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 50 }),
        fc.nat(50),
        (xs, cut) => {
          const u = new Upsampler();
          const parts = [
            ...u.push(Int16Array.from(xs.slice(0, cut))),
            ...u.push(Int16Array.from(xs.slice(cut))),
            ...u.flush(),
          ];
          expect(parts).toEqual(whole(xs));
          expect(parts).toHaveLength(xs.length * 2);
        },
      ),
    );
  });
});

describe('processCallRecognizer', () => {
  // A stand-in recognizer process: reads its stdin to the end, prints the bytes it got and its pid.
  const standIn = (extra = '') => ({
    command: 'sh',
    args: ['-c', `${extra}n=$(wc -c | tr -d ' '); echo "$n $$"`],
    timeoutMs: 5_000,
    parse: (out: string) => ({ text: out.trim(), confidence: null }),
  });

  it('streams each utterance into a warm process (16 kHz PCM16) and reads its result at the end', async () => {
    const recognizer = processCallRecognizer(standIn());
    const first = recognizer.startUtterance();
    for (let i = 0; i < 10; i++) first.write(new Int16Array(160));
    const second = recognizer.startUtterance(); // the caller spoke again before the first was read
    second.write(new Int16Array(160));
    const [bytes1, pid1] = (await first.finish()).text.split(' ');
    const [bytes2, pid2] = (await second.finish()).text.split(' ');
    expect(Number(bytes1)).toBe(10 * 160 * 2 * 2);
    expect(Number(bytes2)).toBe(160 * 2 * 2);
    expect(pid1).not.toBe(pid2);
    await expect(first.finish()).rejects.toThrow(/already ended/);
    recognizer.close();
    expect(() => recognizer.startUtterance()).toThrow(/closed/);
  });

  it('a cancelled utterance is dropped; a failing process rejects its utterance', async () => {
    const recognizer = processCallRecognizer(standIn());
    const noise = recognizer.startUtterance();
    noise.write(new Int16Array(160));
    noise.cancel();
    const next = recognizer.startUtterance();
    next.write(new Int16Array(80));
    expect((await next.finish()).text).toMatch(/^320 /);
    recognizer.close();

    const failing = processCallRecognizer(standIn('echo boom >&2; exit 3; '));
    await expect(failing.startUtterance().finish()).rejects.toThrow(/exited 3: boom/);
    failing.close();
  });

  it('takes the result as soon as the process says it is complete, not at its exit', async () => {
    const recognizer = processCallRecognizer({
      command: 'sh',
      // Prints a line before its input ends (not the result), the result after, then takes 5 s to exit.
      args: ['-c', 'echo early; cat > /dev/null; echo "hello"; echo "</s> 0.1 0.2 1.0"; sleep 5'],
      timeoutMs: 10_000,
      parse: (out: string) => ({ text: out.split('\n').join('|'), confidence: null }),
      complete: (after: string) => /(^|\n)<\/s> [^\n]*\n/.test(after),
    });
    const utterance = recognizer.startUtterance();
    utterance.write(new Int16Array(160));
    const started = performance.now();
    const result = await utterance.finish();
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(result.text).toBe('early|hello|</s> 0.1 0.2 1.0|');
    recognizer.close();
  });

  it('a shared pool keeps one loaded process per open call plus one for the next call', async () => {
    const pool = new RecognizerPool(standIn());
    expect(pool.ready).toBe(0);
    const a = processCallRecognizer(pool.options, pool);
    expect(pool.ready).toBe(2);
    const b = processCallRecognizer(pool.options, pool);
    expect(pool.ready).toBe(3);
    const utterance = a.startUtterance(); // takes a ready one, a replacement is started
    expect(pool.ready).toBe(3);
    utterance.write(new Int16Array(160));
    expect((await utterance.finish()).text).toMatch(/^640 /);
    a.close();
    a.close(); // once
    expect(pool.ready).toBe(2);
    b.close();
    expect(pool.ready).toBe(1); // ready for the next call's first words
    const c = processCallRecognizer(pool.options, pool);
    c.startUtterance().cancel();
    c.close();
    expect(pool.ready).toBe(1);
  });

  it('keeps at most maxReady processes ready; more calls start theirs when the caller speaks', async () => {
    const pool = new RecognizerPool(standIn(), 2);
    const calls = [1, 2, 3, 4].map(() => processCallRecognizer(pool.options, pool));
    expect(pool.ready).toBe(2);
    const utterances = calls.map((c) => c.startUtterance());
    for (const u of utterances) u.write(new Int16Array(160));
    for (const u of utterances) expect((await u.finish()).text).toMatch(/^640 /);
    expect(pool.ready).toBe(2);
    for (const c of calls) c.close();
    expect(pool.ready).toBe(1);
  });
});
