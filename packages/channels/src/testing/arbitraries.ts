import type { ActionSet, ActionSetElement } from '@parley/events';
import fc from 'fast-check';
import type { OutgoingReply } from '../types.js';

/**
 * fast-check arbitraries of what the worker hands to an adapter's transformOutput: ACTION_SET
 * elements, ACTION_SETs and outgoing replies, for the transforms' limit properties.
 *
 * By default every ACTION_SET passes actionSetSchema and its strings and lists reach the schema's
 * own bounds: fast-check's default size ('small') stops at about ten characters or items whatever
 * `maxLength` says, which never comes near a channel's limits. So each string and list is, half the
 * time, of any length up to its bound (size 'max') and otherwise short (size 'small'), which keeps
 * empty texts and one-letter labels as common as before.
 */

/** How strings are built (fast-check's `unit`): 'grapheme' for emoji and combining marks, 'binary' for any code point. */
export type StringUnit = NonNullable<fc.StringConstraints['unit']>;

/** actionSetSchema's bounds (packages/events/src/schemas/session.ts): UTF-16 code units for strings. */
export const ACTION_SET_BOUNDS = {
  id: 100,
  label: 200,
  value: 1000,
  placeholder: 200,
  options: 100,
  inputMaxLength: 10_000,
  elements: 25,
  prompt: 4000,
} as const;

export interface ActionSetArbitraryOptions {
  /** Element kinds to generate: all three by default. */
  types?: readonly ActionSetElement['type'][];
  /** Unit of labels (elements' and options') and placeholders: fast-check's default (printable ASCII) unless set. */
  labelUnit?: StringUnit;
  /** Unit of the prompt. */
  promptUnit?: StringUnit;
  /** Most options a select has: the schema's 100 unless set; more only with `valid: false`. */
  maxOptions?: number;
  /** Most elements a set has: the schema's 25 unless set; more only with `valid: false`. */
  maxElements?: number;
  /**
   * true (default): every set passes actionSetSchema; strings of a wider unit are cut at a code
   * point to the schema's bound in UTF-16 units. false: bounds count units of `labelUnit` and
   * `promptUnit` (200 code points may be 400 code units) and counts may pass the schema's, to
   * give a transform values it must survive although the schema would refuse them.
   */
  valid?: boolean;
  /** fast-check size of every string and list, instead of the mix of 'small' and 'max'. */
  size?: fc.SizeForArbitrary;
}

export interface OutgoingReplyArbitraryOptions extends ActionSetArbitraryOptions {
  /** Longest reply text, in `textUnit`s: 10,000 unless set (OutgoingReply itself has no bound). */
  maxTextLength?: number;
  /** Unit of the reply text. */
  textUnit?: StringUnit;
}

/** The longest prefix of `s` within `max` UTF-16 code units that does not split a code point. */
const fitUnits = (s: string, max: number): string => {
  if (s.length <= max) return s;
  let fitted = '';
  for (const codePoint of s) {
    if (fitted.length + codePoint.length > max) break;
    fitted += codePoint;
  }
  return fitted;
};

/** Half short, half up to the bound; or only `size` when the caller chose one. */
const sized = <T>(size: fc.SizeForArbitrary, make: (size: fc.SizeForArbitrary) => fc.Arbitrary<T>) =>
  size === undefined ? fc.oneof(make('small'), make('max')) : make(size);

const checkedCount = (name: string, wanted: number | undefined, bound: number, valid: boolean): number => {
  const count = wanted ?? bound;
  if (valid && count > bound)
    throw new RangeError(`${name} ${count} passes the schema's ${bound}: ask for valid: false`);
  return count;
};

/** One ACTION_SET element: a button (optional value and style), a select with options, or a text input. */
export const actionSetElementArbitrary = (
  options: ActionSetArbitraryOptions = {},
): fc.Arbitrary<ActionSetElement> => {
  const valid = options.valid ?? true;
  const size = options.size;
  const types = options.types ?? ['button', 'select', 'text_input'];
  const maxOptions = checkedCount('maxOptions', options.maxOptions, ACTION_SET_BOUNDS.options, valid);
  const text = (maxLength: number, unit?: StringUnit) => {
    const raw = sized(size, (s) =>
      fc.string({ minLength: 1, maxLength, size: s, ...(unit === undefined ? {} : { unit }) }),
    );
    return valid && unit !== undefined ? raw.map((s) => fitUnits(s, maxLength)) : raw;
  };
  const id = text(ACTION_SET_BOUNDS.id);
  const label = text(ACTION_SET_BOUNDS.label, options.labelUnit);
  const placeholder = text(ACTION_SET_BOUNDS.placeholder, options.labelUnit);
  const value = text(ACTION_SET_BOUNDS.value);
  const byType = {
    button: fc.record(
      {
        type: fc.constant('button' as const),
        id,
        label,
        value,
        style: fc.constantFrom('primary' as const, 'secondary' as const, 'danger' as const),
      },
      { requiredKeys: ['type', 'id', 'label'] },
    ),
    select: fc.record(
      {
        type: fc.constant('select' as const),
        id,
        label,
        placeholder,
        options: sized(size, (s) =>
          fc.array(fc.record({ label, value }), { minLength: 1, maxLength: maxOptions, size: s }),
        ),
      },
      { requiredKeys: ['type', 'id', 'label', 'options'] },
    ),
    text_input: fc.record(
      {
        type: fc.constant('text_input' as const),
        id,
        label,
        placeholder,
        multiline: fc.boolean(),
        maxLength: fc.integer({ min: 1, max: ACTION_SET_BOUNDS.inputMaxLength }),
      },
      { requiredKeys: ['type', 'id', 'label'] },
    ),
  } satisfies { [T in ActionSetElement['type']]: fc.Arbitrary<Extract<ActionSetElement, { type: T }>> };
  return fc.oneof(...types.map((type): fc.Arbitrary<ActionSetElement> => byType[type]));
};

/** An ACTION_SET: an optional prompt and 1 to `maxElements` elements. */
export const actionSetArbitrary = (options: ActionSetArbitraryOptions = {}): fc.Arbitrary<ActionSet> => {
  const valid = options.valid ?? true;
  const size = options.size;
  const maxElements = checkedCount('maxElements', options.maxElements, ACTION_SET_BOUNDS.elements, valid);
  const unit = options.promptUnit;
  const rawPrompt = sized(size, (s) =>
    fc.string({ maxLength: ACTION_SET_BOUNDS.prompt, size: s, ...(unit === undefined ? {} : { unit }) }),
  );
  const prompt =
    valid && unit !== undefined ? rawPrompt.map((s) => fitUnits(s, ACTION_SET_BOUNDS.prompt)) : rawPrompt;
  return fc.record(
    {
      prompt,
      elements: sized(size, (s) =>
        fc.array(actionSetElementArbitrary(options), { minLength: 1, maxLength: maxElements, size: s }),
      ),
    },
    { requiredKeys: ['elements'] },
  );
};

/** An outgoing reply: text, and an ACTION_SET in most runs (absent in about one in six). */
export const outgoingReplyArbitrary = (
  options: OutgoingReplyArbitraryOptions = {},
): fc.Arbitrary<OutgoingReply> => {
  const unit = options.textUnit;
  return fc.record(
    {
      text: sized(options.size, (s) =>
        fc.string({
          maxLength: options.maxTextLength ?? 10_000,
          size: s,
          ...(unit === undefined ? {} : { unit }),
        }),
      ),
      actionSet: actionSetArbitrary(options),
    },
    { requiredKeys: ['text'] },
  );
};
