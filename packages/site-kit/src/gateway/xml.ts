import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';

// Values stay strings ("0000" must not become 0) and keep their spaces; attributes are read and written
// with an "@_" prefix. Entity expansion is bounded so that a crafted DOCTYPE cannot blow up memory.
// The parser and builder are made on first use: a JSON-only gateway never makes them, and importing
// this module does nothing.
let parser: XMLParser | undefined;
let builder: XMLBuilder | undefined;

function xmlParser(): XMLParser {
  parser ??= new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    maxNestedTags: 16,
    processEntities: {
      enabled: true,
      maxEntityCount: 8,
      maxEntitySize: 256,
      maxTotalExpansions: 64,
      maxExpandedLength: 4096,
    },
  });
  return parser;
}

// PC and PACKINFO carry only attributes and are written `<PC .../>` as the old specification shows;
// other empty elements are written as a pair (`<OID></OID>`).
function xmlBuilder(): XMLBuilder {
  builder ??= new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    suppressEmptyNode: false,
    unpairedTags: ['PC', 'PACKINFO'],
    suppressUnpairedNode: false,
    processEntities: true,
  });
  return builder;
}

const DECLARATION = { '@_version': '1.0', '@_encoding': 'utf-8' };

export type XmlElement = Record<string, unknown>;

/** The document's root elements by name, or undefined when the text is not well-formed XML. */
export function parseXml(text: string): XmlElement | undefined {
  if (XMLValidator.validate(text) !== true) return undefined;
  try {
    const doc: unknown = xmlParser().parse(text);
    return doc !== null && typeof doc === 'object' ? (doc as XmlElement) : undefined;
  } catch {
    return undefined;
  }
}

/** `<?xml version="1.0" encoding="utf-8"?>` and one root element; text and attributes are escaped. */
export function buildXml(root: string, body: XmlElement): string {
  return xmlBuilder().build({ '?xml': DECLARATION, [root]: body }) as string;
}
