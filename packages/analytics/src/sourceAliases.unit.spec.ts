import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CANONICAL_SOURCE_SUBTYPES,
  CANONICAL_SOURCES,
  canonicalSource,
  canonicalSourceSubtype,
  SOURCE_ALIASES,
  SOURCE_SUBTYPE_ALIASES,
} from './sourceAliases.js';
import { sourceLabel, sourceSubtypeLabel } from './sourceLabels.js';

describe('canonicalSource', () => {
  it.each([
    ['runtime', 'runtime'],
    ['RUNTIME', 'runtime'],
    ['agent_session', 'runtime'],
    ['Agent-Session', 'runtime'],
    ['agent session', 'runtime'],
    ['eval', 'evals'],
    ['guardrail', 'guardrails'],
    ['search_ai', 'knowledge'],
    ['analytics_pipeline', 'pipelines'],
    ['sdk_widget_localization', 'channels'],
    ['studio-test-calls', 'studio_test_calls'],
    ['health:credential-store', 'health:credential-store'],
    ['HEALTH:CREDENTIAL_STORE', 'health:credential-store'],
    ['analytics_query', 'analytics_query'],
    ['Something-New', 'something_new'],
    ['constructor', 'constructor'],
  ])('%j → %j', (source, canonical) => {
    expect(canonicalSource(source)).toBe(canonical);
  });

  it('maps every spec value to a canonical source, and every canonical name to itself', () => {
    for (const s of CANONICAL_SOURCES) expect(canonicalSource(s)).toBe(s);
    for (const [from, to] of Object.entries(SOURCE_ALIASES)) {
      expect(canonicalSource(from)).toBe(to);
      expect(CANONICAL_SOURCES).toContain(to);
    }
  });
});

describe('canonicalSourceSubtype', () => {
  it.each([
    ['response_gen', 'response_generation'],
    ['Response-Gen', 'response_generation'],
    ['conversation_compaction', 'conversation_history_compaction'],
    ['nlu_entity_extraction', 'ner_gather_llm_extraction'],
    ['kb_classify_rewrite', 'searchai_kb_query_intelligence'],
    ['query_intelligence', 'searchai_kb_query_intelligence'],
    ['field_validation', 'llm_backed_validation'],
    ['agent_building', 'project_assistance'],
    ['eval_suite_creation', 'evaluation_suite_generation'],
    ['nl_to_sql', 'text_to_sql'],
    ['nl query', 'natural_language_analytics_query'],
    ['translation_generation', 'widget_copy_translation'],
    ['tool_use_iteration', 'tool_use_iteration'],
    ['prompt_test', 'prompt_test'],
  ])('without a source: %j → %j', (subtype, canonical) => {
    expect(canonicalSourceSubtype(subtype)).toBe(canonical);
  });

  it('translates only within the given source', () => {
    expect(canonicalSourceSubtype('response_gen', 'runtime')).toBe('response_generation');
    expect(canonicalSourceSubtype('response_gen', 'agent_session')).toBe('response_generation');
    expect(canonicalSourceSubtype('response_gen', 'knowledge')).toBe('response_gen');
    expect(canonicalSourceSubtype('nl_to_sql', ['knowledge', 'analytics_query'])).toBe('text_to_sql');
    expect(canonicalSourceSubtype('query_intelligence', 'search_ai')).toBe('searchai_kb_query_intelligence');
    expect(canonicalSourceSubtype('query_intelligence', 'arch')).toBe('query_intelligence');
  });

  it('every alias target is a canonical subtype; canonical names map to themselves', () => {
    for (const s of CANONICAL_SOURCE_SUBTYPES) expect(canonicalSourceSubtype(s)).toBe(s);
    for (const { to, sources } of Object.values(SOURCE_SUBTYPE_ALIASES)) {
      expect(CANONICAL_SOURCE_SUBTYPES).toContain(to);
      for (const s of sources) expect(CANONICAL_SOURCES).toContain(s);
    }
  });

  it('is idempotent and total', () => {
    const names = fc.oneof(
      fc.string(),
      fc.constantFrom(...CANONICAL_SOURCE_SUBTYPES, ...Object.keys(SOURCE_SUBTYPE_ALIASES)),
    );
    const sources = fc.option(fc.oneof(fc.string(), fc.constantFrom(...CANONICAL_SOURCES)), {
      nil: undefined,
    });
    fc.assert(
      fc.property(names, sources, (name, source) => {
        const once = canonicalSourceSubtype(name, source);
        expect(canonicalSourceSubtype(once, source)).toBe(once);
        expect(canonicalSource(canonicalSource(name))).toBe(canonicalSource(name));
      }),
    );
  });
});

describe('labels', () => {
  it('labels sources and subtypes, older names included', () => {
    expect(sourceLabel('agent_session')).toBe('Runtime');
    expect(sourceLabel('health:credential-store')).toBe('Credential store health');
    expect(sourceLabel('brand_new')).toBe('Brand new');
    expect(sourceSubtypeLabel('nl_to_sql')).toBe('Text to SQL');
    expect(sourceSubtypeLabel('response_gen', 'runtime')).toBe('Response generation');
    expect(sourceSubtypeLabel('')).toBe('Unknown');
  });

  it('gives a non-empty label for every name', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        expect(sourceLabel(name).length).toBeGreaterThan(0);
        expect(sourceSubtypeLabel(name).length).toBeGreaterThan(0);
      }),
    );
  });
});
