import type { ActionSet } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { parseMsTeamsActivity } from './msteamsPayload.js';
import {
  ADAPTIVE_CARD_CONTENT_TYPE,
  type AdaptiveCard,
  activityBytes,
  MSTEAMS_LIMITS,
  type MsTeamsActivity,
  toMsTeamsOutput,
} from './msteamsTransform.js';

const cardOf = (activity: MsTeamsActivity | undefined): AdaptiveCard | undefined =>
  activity?.attachments?.[0]?.content;
type Node = Record<string, unknown>;
const actionSets = (card: AdaptiveCard | undefined): Node[] =>
  (card?.body ?? []).filter((element) => element.type === 'ActionSet');
const submitActions = (card: AdaptiveCard | undefined): Node[] => [
  ...actionSets(card).flatMap((set) => set.actions as Node[]),
  ...(card?.actions ?? []),
];

/** What Teams posts back when the user clicks `action` after filling in `inputs`. */
const clicked = (action: Node, inputs: Record<string, string> = {}) => ({
  type: 'message',
  id: '1763719300000',
  channelId: 'msteams',
  serviceUrl: 'https://smba.trafficmanager.net/emea/',
  from: { id: '29:user', name: 'Ada' },
  recipient: { id: '28:bot', name: 'Bot' },
  conversation: { id: 'a:conv' },
  replyToId: '1763719200000',
  value: { ...(action.data as Node), ...inputs },
});

describe('Teams transformOutput', () => {
  it('sends plain replies as markdown text, split at 4,000 characters', () => {
    expect(toMsTeamsOutput({ text: 'Your order **#4411** ships _today_.' })).toEqual({
      activities: [{ type: 'message', text: 'Your order **#4411** ships _today_.', textFormat: 'markdown' }],
    });
    const long = toMsTeamsOutput({ text: 'word '.repeat(2000) });
    expect(long.activities).toHaveLength(3);
    for (const activity of long.activities)
      expect(Array.from(activity.text ?? '').length).toBeLessThanOrEqual(4000);
    expect(toMsTeamsOutput({ text: '  ' })).toEqual({ activities: [] });
  });

  it('renders an ACTION_SET as one Adaptive Card with the text, inputs and Action.Submit rows of 6', () => {
    const set: ActionSet = {
      prompt: 'How should we ship it?',
      elements: [
        {
          type: 'select',
          id: 'speed',
          label: 'Speed',
          placeholder: 'Pick one',
          options: [
            { label: 'Standard', value: 'std' },
            { label: 'Express', value: 'exp' },
          ],
        },
        { type: 'text_input', id: 'note', label: 'Note for the courier', multiline: true, maxLength: 200 },
        ...Array.from({ length: 7 }, (_, i) => ({
          type: 'button' as const,
          id: `b${i}`,
          label: `Button ${i}`,
          ...(i === 0 ? { value: 'go', style: 'primary' as const } : {}),
        })),
      ],
    };
    const [activity, ...rest] = toMsTeamsOutput({ text: 'Almost done.', actionSet: set }).activities;
    expect(rest).toEqual([]);
    expect(activity?.text).toBe('Almost done.');
    expect(activity?.textFormat).toBe('markdown');
    expect(activity?.attachments?.[0]?.contentType).toBe(ADAPTIVE_CARD_CONTENT_TYPE);
    const card = cardOf(activity);
    expect(card?.version).toBe('1.4');
    expect(card?.body.slice(0, 3)).toEqual([
      { type: 'TextBlock', text: 'How should we ship it?', wrap: true },
      {
        type: 'Input.ChoiceSet',
        id: 'select:speed',
        label: 'Speed',
        style: 'compact',
        placeholder: 'Pick one',
        choices: [
          { title: 'Standard', value: 'std' },
          { title: 'Express', value: 'exp' },
        ],
      },
      {
        type: 'Input.Text',
        id: 'text:note',
        label: 'Note for the courier',
        isMultiline: true,
        maxLength: 200,
      },
    ]);
    expect(actionSets(card).map((s) => (s.actions as Node[]).length)).toEqual([6, 1]);
    expect(submitActions(card)[0]).toEqual({
      type: 'Action.Submit',
      title: 'Button 0',
      data: { parley: { id: 'b0', value: 'go', label: 'Button 0' } },
      style: 'positive',
    });
    expect(card?.actions).toBeUndefined();
  });

  it('adds a Submit to a card with inputs only; its post comes back as the input’s action', () => {
    const set: ActionSet = { elements: [{ type: 'text_input', id: 'email', label: 'Your e-mail' }] };
    const card = cardOf(toMsTeamsOutput({ text: '', actionSet: set }).activities[0]);
    const [submit] = card?.actions ?? [];
    expect(submit).toEqual({ type: 'Action.Submit', title: 'Submit', data: { parley: {} } });
    const [message] = parseMsTeamsActivity(
      clicked(submit ?? {}, { 'text:email': 'ada@example.com' }),
      new Date(),
    );
    expect(message?.actionEvent).toEqual({
      actionId: 'email',
      value: 'ada@example.com',
      type: 'text_input',
      inputs: { email: 'ada@example.com' },
    });
  });

  it('sends long text before the card when both do not fit one message', () => {
    const set: ActionSet = { elements: [{ type: 'button', id: 'ok', label: 'OK' }] };
    const out = toMsTeamsOutput({ text: 'x'.repeat(9000), actionSet: set });
    expect(out.activities.map((a) => [a.text === undefined, a.attachments === undefined])).toEqual([
      [false, true],
      [false, true],
      [false, true],
      [true, false],
    ]);
  });

  it('shrinks a card over 28,000 bytes: fewer choices first, then fewer elements', () => {
    const select = (i: number) => ({
      type: 'select' as const,
      id: `s${i}`,
      label: `Select ${i}`,
      options: Array.from({ length: 100 }, (_, j) => ({
        label: `Option ${j}`,
        value: `${j}-${'v'.repeat(300)}`,
      })),
    });
    const card = (set: ActionSet) => cardOf(toMsTeamsOutput({ text: '', actionSet: set }).activities[0]);
    const choices = (c: AdaptiveCard | undefined) =>
      (c?.body ?? []).filter((e) => e.type === 'Input.ChoiceSet').map((e) => (e.choices as unknown[]).length);
    // One select of 100 long options (~33 KB): kept with 50 choices.
    expect(choices(card({ elements: [select(0)] }))).toEqual([50]);
    // 25 of them: 10 choices each is still too much, so elements go from the end.
    const many = card({ elements: Array.from({ length: 25 }, (_, i) => select(i)) });
    expect(choices(many).every((n) => n === 10)).toBe(true);
    expect(choices(many).length).toBeGreaterThan(1);
    expect(choices(many).length).toBeLessThan(25);
    const activity = toMsTeamsOutput({ text: '', actionSet: { elements: [select(0)] } }).activities[0];
    expect(activity && activityBytes(activity)).toBeLessThanOrEqual(MSTEAMS_LIMITS.activityBytes);
  });

  it('stays within Teams limits and round-trips every button it keeps (property)', () => {
    // A prompt of up to 4,000 code points, past the schema's 4,000 UTF-16 units.
    const replies = outgoingReplyArbitrary({
      maxTextLength: 12_000,
      textUnit: 'binary',
      promptUnit: 'binary',
      valid: false,
    });
    fc.assert(
      fc.property(replies, (reply) => {
        const { actionSet } = reply;
        const elements = actionSet?.elements;
        const out = toMsTeamsOutput(reply);
        const cards = out.activities.filter((a) => a.attachments !== undefined);
        expect(cards).toHaveLength(actionSet === undefined ? 0 : 1);
        for (const activity of out.activities) {
          expect(activityBytes(activity)).toBeLessThanOrEqual(MSTEAMS_LIMITS.activityBytes);
          expect(activity.type).toBe('message');
        }
        const card = cardOf(cards[0]);
        if (card === undefined || elements === undefined) return;
        for (const set of actionSets(card)) {
          expect((set.actions as Node[]).length).toBeLessThanOrEqual(MSTEAMS_LIMITS.actionsPerSet);
        }
        const inputIds = card.body.filter((e) => String(e.type).startsWith('Input.')).map((e) => e.id);
        expect(new Set(inputIds).size).toBe(inputIds.length);
        const actions = submitActions(card);
        expect(actions.length).toBeGreaterThan(0);
        for (const action of actions) {
          const [message] = parseMsTeamsActivity(clicked(action), new Date());
          const marker = (action.data as { parley: { id?: string } }).parley;
          if (marker.id === undefined) continue;
          // Ids may repeat in an ACTION_SET: the click is one of the buttons with that id.
          const values = elements.flatMap((e) =>
            e.type === 'button' && e.id === marker.id ? [e.value ?? e.id] : [],
          );
          expect(message?.actionEvent?.type).toBe('button');
          expect(message?.actionEvent?.actionId).toBe(marker.id);
          expect(values).toContain(message?.actionEvent?.value);
        }
      }),
      { numRuns: 100 },
    );
  });
});
