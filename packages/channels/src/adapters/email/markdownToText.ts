/**
 * Markdown to plain text for email bodies (spec 001 "Email channel": output is plain text from
 * markdown). A small converter instead of a library: agents write a narrow subset (emphasis, links,
 * lists, headings, code) and the result must read well in a text/plain mail, which renderers to
 * HTML do not aim at.
 *
 * - `**bold**`, `__bold__`, `*em*`, `_em_`, `~~strike~~`, `` `code` `` lose their markers;
 * - `[text](url)` becomes `text (url)` (just `url` when the text is the URL); `![alt](url)` likewise;
 *   `<https://x>` autolinks lose their brackets;
 * - `# Heading` lines lose the hashes; `* item` / `+ item` become `- item`; numbered items stay;
 * - fenced code blocks keep their content verbatim (without the fences), indented by four spaces;
 * - `---`, `***`, `___` rules become a line of dashes; `\*` style escapes lose the backslash.
 */
export function markdownToText(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (
        fenceMatch !== null &&
        fenceMatch[1]?.[0] === fence[0] &&
        (fenceMatch[1]?.length ?? 0) >= fence.length
      ) {
        fence = null;
      } else {
        out.push(line === '' ? '' : `    ${line}`);
      }
      continue;
    }
    if (fenceMatch !== null) {
      fence = fenceMatch[1] ?? '```';
      continue;
    }
    out.push(blockLine(line));
  }
  // Leading blank lines and trailing space go; a first line's indentation (a code block) stays.
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
}

function blockLine(line: string): string {
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '----------';
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading !== null) return inline(heading[1] ?? '');
  const bullet = /^(\s*)[*+-]\s+(.*)$/.exec(line);
  if (bullet !== null) return `${bullet[1]}- ${inline(bullet[2] ?? '')}`;
  return inline(line);
}

/** Code spans are cut out first so that nothing inside them is read as markup. */
function inline(text: string): string {
  const parts = text.split(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/);
  let result = '';
  // split with two capture groups: [text, ticks, code, text, ticks, code, ..., text]
  for (let i = 0; i < parts.length; i += 3) {
    result += markup(parts[i] ?? '');
    if (i + 2 < parts.length) result += parts[i + 2] ?? '';
  }
  return result;
}

/** Escaped characters are set aside first (as their code point) so that no rule reads them as markup. */
const ESCAPED = /\\([\\`*_{}[\]()#+\-.!~>])/g;
const SET_ASIDE = /\uE000(\d+)\uE001/g;

function markup(text: string): string {
  return (
    text
      .replace(ESCAPED, (_m, c: string) => `\uE000${c.charCodeAt(0)}\uE001`)
      // images and links: ![alt](url "title"), [text](url "title")
      .replace(
        /!?\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
        (_m, label: string, url: string) => {
          const shown = label.trim();
          return shown === '' || shown === url ? url : `${shown} (${url})`;
        },
      )
      .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
      .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
      .replace(/(^|[^\w*])\*([^\s*](?:[^*\n]*?[^\s*])?)\*(?![\w*])/g, '$1$2')
      .replace(/(^|[^\w])_([^\s_](?:[^_\n]*?[^\s_])?)_(?!\w)/g, '$1$2')
      .replace(SET_ASIDE, (_m, code: string) => String.fromCharCode(Number(code)))
  );
}
