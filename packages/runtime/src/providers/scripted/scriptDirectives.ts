import type { ActionSet, ActionSetElement } from '@parley/events';
import type { ScriptDirective } from '../types.js';
import type { ScriptCommand } from './parseScript.js';

/** Directives in command order; every buttons/select/input command joins one action set. */
export function directivesOf(commands: readonly ScriptCommand[]): ScriptDirective[] {
  const directives: ScriptDirective[] = [];
  const elements: ActionSetElement[] = [];
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
  for (const command of commands) {
    switch (command.keyword) {
      case 'handoff':
        directives.push({
          kind: 'handoff',
          agentName: command.agentName,
          ...optional('reason', command.reason),
        });
        break;
      case 'end':
        directives.push({
          kind: 'end',
          containmentType: command.containmentType,
          status: endStatusFor(command.containmentType),
          reason: command.reason ?? 'agent_ended',
        });
        break;
      case 'guardrail':
        directives.push({ kind: 'guardrail', name: command.name, outcome: command.outcome });
        break;
      case 'decision':
        directives.push({
          kind: 'decision',
          decisionKind: command.decisionKind,
          ...optional('choice', command.choice),
        });
        break;
      case 'state':
        directives.push({ kind: 'state_change', name: command.name, ...optional('value', command.value) });
        break;
      case 'buttons':
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
        elements.push({
          type: 'select',
          id: idFor('select', command.label),
          label: clip(command.label, 200),
          options: command.options.slice(0, 100).map((o) => ({ label: clip(o, 200), value: clip(o, 1000) })),
        });
        break;
      case 'input':
        elements.push({
          type: 'text_input',
          id: idFor('input', command.label),
          label: clip(command.label, 200),
        });
        break;
      case 'tool':
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
  if (elements.length > 0) {
    const actionSet: ActionSet = { elements: elements.slice(0, 25) };
    directives.push({ kind: 'action_set', actionSet });
  }
  return directives;
}

/** The end state a containment type implies: contained* sessions completed. */
export function endStatusFor(containmentType: string): 'completed' | 'escalated' | 'abandoned' {
  if (containmentType === 'escalated') return 'escalated';
  if (containmentType === 'abandoned') return 'abandoned';
  return 'completed';
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>);

export const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;
