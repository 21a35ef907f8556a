import { canonicalSource, canonicalSourceSubtype } from './sourceAliases.js';

/**
 * Display labels of the ledger's `sourceLabel` and `sourceSubtypeLabel` (spec 000 §2.3). Names
 * without an entry get a label made from the name (`foo_bar` → `Foo bar`), so a new source never
 * shows an empty label.
 */
const SOURCE_LABELS: Readonly<Record<string, string>> = {
  runtime: 'Runtime',
  runtime_internal: 'Runtime (internal)',
  arch: 'Arch',
  evals: 'Evals',
  pipelines: 'Pipelines',
  guardrails: 'Guardrails',
  knowledge: 'Knowledge',
  studio_test_calls: 'Studio test calls',
  channels: 'Channels',
  analytics_query: 'Analytics query',
  prompt_library: 'Prompt library',
  model_health: 'Model health',
  model_admin: 'Model admin',
  'health:credential-store': 'Credential store health',
};

const SOURCE_SUBTYPE_LABELS: Readonly<Record<string, string>> = {
  response_generation: 'Response generation',
  conversation_history_compaction: 'Conversation history compaction',
  ner_gather_llm_extraction: 'Entity extraction (LLM)',
  model_based_pii_entity_recognizer: 'PII entity recognition (model)',
  model_entity_preview: 'Entity preview (model)',
  llm_backed_validation: 'LLM-backed validation',
  searchai_kb_query_intelligence: 'Knowledge base query intelligence',
  searchai_query_assistance: 'Search query assistance',
  routing_pipeline: 'Routing pipeline',
  pipeline_classifier: 'Pipeline classifier',
  pipeline_tool_filter: 'Pipeline tool filter',
  pipeline_merge: 'Pipeline merge',
  contextual_filler_generation: 'Contextual filler generation',
  tool_result_summarization: 'Tool result summarization',
  sip_handoff_summary: 'SIP handoff summary',
  semantic_execution: 'Semantic execution',
  legacy_nlu_fallback: 'Legacy NLU fallback',
  general_assistance: 'General assistance',
  project_assistance: 'Project assistance',
  eval_remediation: 'Eval remediation',
  evaluation_suite_generation: 'Evaluation suite generation',
  natural_language_analytics_query: 'Natural-language analytics query',
  text_to_sql: 'Text to SQL',
  guardrails: 'Guardrails',
  studio_test_calls: 'Studio test calls',
  widget_copy_translation: 'Widget copy translation',
  tool_use_iteration: 'Tool use iteration',
  realtime_response: 'Realtime response',
  eval_design_time_asset_generation: 'Eval design-time asset generation',
  prompt_test: 'Prompt test',
  prompt_experiment: 'Prompt experiment',
  credential_health_check: 'Credential health check',
};

export function sourceLabel(source: string): string {
  const name = canonicalSource(source);
  return lookup(SOURCE_LABELS, name) ?? humanise(name);
}

/** The subtype's label; pass the call's source so older subtype names translate as the ledger stores them. */
export function sourceSubtypeLabel(subtype: string, source?: string): string {
  const name = canonicalSourceSubtype(subtype, source);
  return lookup(SOURCE_SUBTYPE_LABELS, name) ?? humanise(name);
}

function lookup(labels: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.hasOwn(labels, name) ? labels[name] : undefined;
}

function humanise(name: string): string {
  const words = name.replace(/[_:\-\s]+/g, ' ').trim();
  return words === '' ? 'Unknown' : words.charAt(0).toUpperCase() + words.slice(1);
}
