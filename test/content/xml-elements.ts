/**
 * Just enough XML for reading an MPD in tests (elements, attributes, text; no DTDs, no entities
 * beyond the five predefined ones). The test package has no XML parser and needs no more than this.
 */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  text: string;
}

const TOKEN =
  /<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<\/([\w:.-]+)\s*>|<([\w:.-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

export function parseXml(source: string): XmlElement {
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  for (const match of source.matchAll(TOKEN)) {
    const [, closing, opening, attributeText = '', selfClosing, text] = match;
    const parent = stack.at(-1) ?? root;
    if (opening !== undefined) {
      const element: XmlElement = {
        name: opening,
        attributes: readAttributes(attributeText),
        children: [],
        text: '',
      };
      parent.children.push(element);
      if (selfClosing !== '/') stack.push(element);
    } else if (closing !== undefined) {
      if (parent.name !== closing) throw new Error(`XML: </${closing}> closes <${parent.name}>`);
      stack.pop();
    } else if (text !== undefined) {
      parent.text += unescape(text);
    }
  }
  if (stack.length !== 1) throw new Error(`XML: <${stack.at(-1)?.name}> is never closed`);
  const [top] = root.children;
  if (top === undefined) throw new Error('XML: no root element');
  return top;
}

/** Every descendant element named `name`, depth first. */
export function descendants(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((child) => [
    ...(child.name === name ? [child] : []),
    ...descendants(child, name),
  ]);
}

function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [, name = '', double, single] of text.matchAll(ATTRIBUTE)) {
    attributes[name] = unescape(double ?? single ?? '');
  }
  return attributes;
}

function unescape(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}
