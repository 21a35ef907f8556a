/**
 * Test helper: why a string is not a well-formed XML 1.0 document (null when it is). Checks what
 * a generated VoiceXML document can get wrong: characters XML forbids, element nesting and names,
 * attribute syntax and uniqueness, entity and character references, `]]>` in text, one root.
 * Not a validating parser (no DTD, no namespaces well-formedness beyond names).
 */
export function xmlWellFormedError(xml: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding the characters XML forbids is the point
  const invalid = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.exec(xml);
  if (invalid) return `forbidden character U+${invalid[0].charCodeAt(0).toString(16)}`;
  for (let i = 0; i < xml.length; i++) {
    const code = xml.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = xml.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return 'lone high surrogate';
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) return 'lone low surrogate';
  }
  const NAME = /^[A-Za-z_:][-A-Za-z0-9._:]*/;
  const REFERENCE = /&(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/y;
  const checkReferences = (text: string, where: string): string | null => {
    for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
      REFERENCE.lastIndex = i;
      if (!REFERENCE.test(text)) return `bad reference in ${where}: ${text.slice(i, i + 12)}`;
    }
    return null;
  };
  const stack: string[] = [];
  let roots = 0;
  let at = 0;
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) return 'unterminated XML declaration';
    at = end + 2;
  }
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    const text = xml.slice(at, lt < 0 ? xml.length : lt);
    if (stack.length === 0 && text.trim() !== '') return 'text outside the root element';
    if (text.includes(']]>')) return '`]]>` in text';
    const badText = checkReferences(text, 'text');
    if (badText) return badText;
    if (lt < 0) break;
    if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt + 4);
      if (end < 0 || xml.slice(lt + 4, end).includes('--')) return 'bad comment';
      at = end + 3;
    } else if (xml.startsWith('<![CDATA[', lt)) {
      if (stack.length === 0) return 'CDATA outside the root element';
      const end = xml.indexOf(']]>', lt);
      if (end < 0) return 'unterminated CDATA';
      at = end + 3;
    } else if (xml.startsWith('<?', lt)) {
      const end = xml.indexOf('?>', lt);
      if (end < 0) return 'unterminated processing instruction';
      at = end + 2;
    } else if (xml.startsWith('</', lt)) {
      const name = NAME.exec(xml.slice(lt + 2))?.[0];
      if (name === undefined) return 'bad end tag';
      const close = /^\s*>/.exec(xml.slice(lt + 2 + name.length));
      if (close === null) return `bad end tag </${name}`;
      if (stack.pop() !== name) return `mismatched end tag </${name}>`;
      at = lt + 2 + name.length + close[0].length;
    } else {
      const name = NAME.exec(xml.slice(lt + 1))?.[0];
      if (name === undefined) return `bad start tag at ${lt}`;
      if (stack.length === 0 && ++roots > 1) return 'more than one root element';
      let pos = lt + 1 + name.length;
      const seen = new Set<string>();
      for (;;) {
        const attribute = /^\s+([A-Za-z_:][-A-Za-z0-9._:]*)\s*=\s*("[^<"]*"|'[^<']*')/.exec(xml.slice(pos));
        if (attribute === null) break;
        const attrName = attribute[1] as string;
        if (seen.has(attrName)) return `attribute ${attrName} repeated on <${name}>`;
        seen.add(attrName);
        const badValue = checkReferences((attribute[2] as string).slice(1, -1), `attribute ${attrName}`);
        if (badValue) return badValue;
        pos += attribute[0].length;
      }
      const end = /^\s*(\/?)>/.exec(xml.slice(pos));
      if (end === null) return `bad start tag <${name}`;
      if (end[1] !== '/') stack.push(name);
      at = pos + end[0].length;
    }
  }
  if (stack.length > 0) return `unclosed <${stack[stack.length - 1]}>`;
  return roots === 1 ? null : 'no root element';
}
