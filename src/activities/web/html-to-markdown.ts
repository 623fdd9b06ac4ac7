// A page as Markdown by linkedom, Readability and Turndown, loaded on first use (docs/operations.md).
import type TurndownService from 'turndown';
import { ErrorType } from '../../shared/protocol/errors';
import { FetchRefusal } from './safe-fetch';

const textTypes = [
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'text/csv',
  'application/json',
  'application/xml',
  'text/xml',
  'application/javascript',
  'text/css',
];

function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** Decodes the body with the charset the server named (UTF-8 when none or unknown). */
export function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset=["']?([^;"'\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

interface HtmlLibraries {
  Readability: typeof import('@mozilla/readability').Readability;
  parseHTML: typeof import('linkedom').parseHTML;
  Turndown: typeof TurndownService;
}

let libraries: Promise<HtmlLibraries> | undefined;

function loadLibraries(): Promise<HtmlLibraries> {
  libraries ??= Promise.all([import('@mozilla/readability'), import('linkedom'), import('turndown')]).then(
    ([readability, linkedom, turndown]) => ({
      Readability: readability.Readability,
      parseHTML: linkedom.parseHTML,
      Turndown: turndown.default,
    }),
  );
  return libraries;
}

function turndown(Turndown: typeof TurndownService): TurndownService {
  const service = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove(['script', 'style', 'noscript', 'iframe']);
  return service;
}

/** HTML → Markdown: the readable article when Readability finds one, else the whole body. */
export async function htmlToMarkdown(html: string): Promise<{ title?: string; markdown: string }> {
  const { Readability, parseHTML, Turndown } = await loadLibraries();
  const { document } = parseHTML(html);
  let title: string | undefined = document.title?.trim() || undefined;
  let contentHtml: string | undefined;
  try {
    // Readability changes the document it reads, so it gets its own copy.
    const article = new Readability(
      parseHTML(html).document as unknown as ConstructorParameters<typeof Readability>[0],
    ).parse();
    if (article?.content && (article.textContent ?? '').trim().length > 0) {
      contentHtml = article.content;
      title = article.title?.trim() || title;
    }
  } catch {
    // Readability gave up on this page: the whole body is used.
  }
  // A fragment without <html>/<body> has no body to read: the text itself is converted.
  const markdown = turndown(Turndown)
    .turndown(contentHtml ?? (document.body?.innerHTML || html))
    .trim();
  return { ...(title ? { title } : {}), markdown };
}

/** The page as text for the model; throws UnsupportedContent for binary types. */
export async function pageToMarkdown(body: Buffer, contentType: string): Promise<string> {
  const type = mediaType(contentType);
  const text = decodeBody(body, contentType);
  if (type === '' || type === 'text/html' || type === 'application/xhtml+xml') {
    const { title, markdown } = await htmlToMarkdown(text);
    return title && !markdown.startsWith(`# ${title}`) ? `# ${title}\n\n${markdown}` : markdown;
  }
  if (type.startsWith('text/') || textTypes.includes(type) || type.endsWith('+json') || type.endsWith('+xml'))
    return text;
  throw new FetchRefusal(
    ErrorType.UnsupportedContent,
    `the page is ${type}, which WebFetch cannot read (it reads HTML and text).`,
  );
}
