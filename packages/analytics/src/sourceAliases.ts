/**
 * Source and sourceSubtype names of the LLM ledger (spec 000 §4.3): current and older names are
 * accepted, case-insensitive, with `-` and space read as `_`; older names become current ones. The
 * llm-ledger projection stores canonicalSource / canonicalSourceSubtype of each call, and the ledger
 * filter passes the same canonical names, so old and new spellings meet. README "Decisions" gives the
 * reasoning behind each pairing.
 */

/** Current source names (spec 000 §4.3), plus listed names with no newer equivalent. */
export const CANONICAL_SOURCES = [
  'runtime',
  'runtime_internal',
  'arch',
  'evals',
  'pipelines',
  'guardrails',
  'knowledge',
  'studio_test_calls',
  'channels',
  'analytics_query',
  'prompt_library',
  'model_health',
  'model_admin',
  'health:credential-store',
] as const;

/** Older source name → current one. */
export const SOURCE_ALIASES: Readonly<Record<string, string>> = {
  agent_session: 'runtime',
  eval: 'evals',
  guardrail: 'guardrails',
  search_ai: 'knowledge',
  analytics_pipeline: 'pipelines',
  sdk_widget_localization: 'channels',
};

/** Current subtype names (spec 000 §4.3), plus listed names with no newer equivalent. */
export const CANONICAL_SOURCE_SUBTYPES = [
  'response_generation',
  'conversation_history_compaction',
  'ner_gather_llm_extraction',
  'model_based_pii_entity_recognizer',
  'model_entity_preview',
  'llm_backed_validation',
  'searchai_kb_query_intelligence',
  'searchai_query_assistance',
  'routing_pipeline',
  'pipeline_classifier',
  'pipeline_tool_filter',
  'pipeline_merge',
  'contextual_filler_generation',
  'tool_result_summarization',
  'sip_handoff_summary',
  'semantic_execution',
  'legacy_nlu_fallback',
  'general_assistance',
  'project_assistance',
  'eval_remediation',
  'evaluation_suite_generation',
  'natural_language_analytics_query',
  'text_to_sql',
  'guardrails',
  'studio_test_calls',
  'widget_copy_translation',
  'tool_use_iteration',
  'realtime_response',
  'eval_design_time_asset_generation',
  'prompt_test',
  'prompt_experiment',
  'credential_health_check',
] as const;

/**
 * Older subtype name → current one, and the (canonical) sources whose subtypes the current name
 * belongs to: when a source is known, the translation applies only under one of these sources.
 */
export const SOURCE_SUBTYPE_ALIASES: Readonly<Record<string, { to: string; sources: readonly string[] }>> = {
  response_gen: { to: 'response_generation', sources: ['runtime'] },
  conversation_compaction: { to: 'conversation_history_compaction', sources: ['runtime'] },
  nlu_entity_extraction: { to: 'ner_gather_llm_extraction', sources: ['runtime'] },
  field_validation: { to: 'llm_backed_validation', sources: ['runtime'] },
  kb_classify_rewrite: { to: 'searchai_kb_query_intelligence', sources: ['knowledge'] },
  query_intelligence: { to: 'searchai_kb_query_intelligence', sources: ['knowledge'] },
  agent_building: { to: 'project_assistance', sources: ['arch'] },
  eval_suite_creation: { to: 'evaluation_suite_generation', sources: ['arch', 'evals'] },
  nl_to_sql: { to: 'text_to_sql', sources: ['arch', 'analytics_query'] },
  nl_query: { to: 'natural_language_analytics_query', sources: ['arch', 'analytics_query'] },
  translation_generation: { to: 'widget_copy_translation', sources: ['channels'] },
};

const SOURCES_BY_KEY = new Map<string, string>(CANONICAL_SOURCES.map((s) => [normaliseName(s), s]));

/** Lower case, `-` and whitespace as `_`, outer whitespace dropped: the form names are compared in. */
export function normaliseName(value: string): string {
  return value.trim().toLowerCase().replace(/[-\s]/g, '_');
}

/** The current name of a source; an unknown source gives its normalised form (it matches only itself). */
export function canonicalSource(source: string): string {
  const key = normaliseName(source);
  return (
    SOURCES_BY_KEY.get(key) ?? (Object.hasOwn(SOURCE_ALIASES, key) ? SOURCE_ALIASES[key] : undefined) ?? key
  );
}

/**
 * The current name of a subtype. With `source` (one or several, any spelling), an older name is
 * translated only when its current name belongs to one of those sources; without it, always.
 */
export function canonicalSourceSubtype(subtype: string, source?: string | readonly string[]): string {
  const key = normaliseName(subtype);
  const alias = Object.hasOwn(SOURCE_SUBTYPE_ALIASES, key) ? SOURCE_SUBTYPE_ALIASES[key] : undefined;
  if (alias === undefined) return key;
  if (source === undefined) return alias.to;
  const sources = (typeof source === 'string' ? [source] : source).map(canonicalSource);
  if (sources.length === 0) return alias.to;
  return sources.some((s) => alias.sources.includes(s)) ? alias.to : key;
}
