import { describe, expect, it } from 'vitest';
import { createWakeRing } from './wakeRing.js';

describe('the wake ring', () => {
  it('wakes one idle worker at a time, in turn, and none while all are at work', async () => {
    const woken: string[] = [];
    const ring = createWakeRing((id) => woken.push(id));
    for (const id of ['a', 'b', 'c']) ring.add(id);
    ring.wakeOne();
    ring.wakeOne();
    ring.wakeOne();
    ring.wakeOne();
    expect(woken).toEqual(['a', 'b', 'c', 'a']);

    woken.length = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const busyB = ring.busy(
      () => 'b',
      () => held,
    );
    ring.wakeOne(); // next in turn is b, at work: c instead
    expect(woken).toEqual(['c']);
    const busyA = ring.busy(
      () => 'a',
      () => held,
    );
    const busyC = ring.busy(
      () => 'c',
      () => held,
    );
    ring.wakeOne();
    expect(woken).toEqual(['c']);
    release();
    await Promise.all([busyA, busyB, busyC]);
    ring.wakeOne();
    expect(woken).toEqual(['c', 'a']);
  });
});
