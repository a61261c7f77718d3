/**
 * The webview's HTML, a pure function so the webview tests load exactly what the editor
 * loads. Strict CSP: scripts only with the nonce; styles and fonts only from the
 * extension's own files (cspSource); nothing else, no inline handlers, no eval.
 */
export interface WebviewHtmlParts {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
  title: string;
  /** What the page says until its script renders. */
  loading?: string;
}

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function webviewHtml(p: WebviewHtmlParts): string {
  const csp = [
    "default-src 'none'",
    `style-src ${p.cspSource} 'nonce-${p.nonce}'`,
    `font-src ${p.cspSource}`,
    `img-src ${p.cspSource} data:`,
    `script-src 'nonce-${p.nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(p.codiconUri)}" id="vscode-codicon-stylesheet" nonce="${p.nonce}">
<link rel="stylesheet" href="${escapeAttr(p.styleUri)}" nonce="${p.nonce}">
<title>${escapeAttr(p.title)}</title>
</head>
<body>
<div id="app" role="main"><p class="muted">${escapeAttr(p.loading ?? 'Loading the run…')}</p></div>
<script nonce="${p.nonce}" src="${escapeAttr(p.scriptUri)}"></script>
</body>
</html>`;
}

/** A nonce per page load: 32 characters from the CSP base64 alphabet. */
export function makeNonce(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(24)).toString('base64').replace(/[+/=]/g, 'A').slice(0, 32);
}
