import type { ActionSetElement } from '@parley/events';
import type { ScriptCommand } from './parseScript.js';

/** A tool call a script asks for (the scripted provider adds the id). */
export interface ScriptedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A file type from a URL's extension, for `/media`. */
export function mimeTypeOf(url: string): string {
  const ext = /\.([A-Za-z0-9]+)(?:[?#].*)?$/.exec(url)?.[1]?.toLowerCase();
  const types: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    pdf: 'application/pdf',
    mp3: 'audio/mpeg',
    mp4: 'video/mp4',
    txt: 'text/plain',
  };
  return (ext === undefined ? undefined : types[ext]) ?? 'application/octet-stream';
}

/**
 * The tool calls a script's commands stand for, in command order: `/tool` calls the tool named;
 * `/handoff`, `/end`, `/escalate` and `/media` call the system tools a real model would
 * (handoff, end_conversation, escalate, attach_media); every `/buttons`, `/select` and `/input`
 * joins one present_actions call. The engine runs them exactly as it runs a real model's calls.
 */
export function toolCallsOf(commands: readonly ScriptCommand[]): ScriptedCall[] {
  const calls: ScriptedCall[] = [];
  const elements: ActionSetElement[] = [];
  let actionsAt = -1;
  const ids = new Set<string>();
  const idFor = (prefix: string, label: string): string => {
    const base = `${prefix}_${
      label
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '') || 'item'
    }`.slice(0, 90);
    let id = base;
    for (let n = 2; ids.has(id); n++) id = `${base}_${n}`;
    ids.add(id);
    return id;
  };
  const actions = () => {
    if (actionsAt < 0) {
      actionsAt = calls.length;
      calls.push({ name: 'present_actions', arguments: {} });
    }
  };
  for (const command of commands) {
    switch (command.keyword) {
      case 'tool':
        calls.push({ name: command.name, arguments: command.arguments });
        break;
      case 'handoff':
        calls.push({
          name: 'handoff',
          arguments: { agent: command.agentName, ...optional('reason', command.reason) },
        });
        break;
      case 'end':
        calls.push(
          command.containmentType === 'escalated'
            ? { name: 'escalate', arguments: { reason: command.reason ?? 'agent_escalated' } }
            : {
                name: 'end_conversation',
                arguments: { outcome: command.containmentType, reason: command.reason ?? 'agent_ended' },
              },
        );
        break;
      case 'media':
        calls.push({
          name: 'attach_media',
          arguments: {
            url: command.url,
            mimeType: mimeTypeOf(command.url),
            ...optional('caption', command.caption),
          },
        });
        break;
      case 'buttons':
        actions();
        for (const label of command.labels) {
          elements.push({
            type: 'button',
            id: idFor('btn', label),
            label: clip(label, 200),
            value: clip(label, 1000),
          });
        }
        break;
      case 'select':
        actions();
        elements.push({
          type: 'select',
          id: idFor('select', command.label),
          label: clip(command.label, 200),
          options: command.options.slice(0, 100).map((o) => ({ label: clip(o, 200), value: clip(o, 1000) })),
        });
        break;
      case 'input':
        actions();
        elements.push({
          type: 'text_input',
          id: idFor('input', command.label),
          label: clip(command.label, 200),
        });
        break;
      case 'error':
      case 'length':
      case 'reason':
      case 'delay':
      case 'say':
        break;
      default: {
        const exhaustive: never = command;
        throw new Error(`unhandled script command ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  if (actionsAt >= 0)
    calls[actionsAt] = { name: 'present_actions', arguments: { elements: elements.slice(0, 25) } };
  return calls;
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>);

export const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;
