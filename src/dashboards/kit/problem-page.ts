import { escapeHtml } from '../links/page';

export interface ProblemPage {
  /** The dashboard's mount (/dashboard, /merchant): its stylesheet and its home. */
  mount: string;
  title: string;
  text: string;
  /** The address "Try again" opens again; null where trying again cannot help. */
  retry: string | null;
}

/**
 * The page a browser gets when a dashboard page cannot be served (no such page, the service
 * unavailable, an error): what happened in words, "Try again" and the way home, in the dashboards'
 * style. No script: "Try again" is a link to the same address.
 */
export function renderProblemPage(page: ProblemPage): string {
  const e = escapeHtml;
  const retry = page.retry === null ? '' : `<a class="button primary" href="${e(page.retry)}">Try again</a> `;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(page.title)}</title>
<link rel="stylesheet" href="${e(page.mount)}/assets/dashboard.css"></head>
<body class="login"><main><section class="card problem" role="alert">
<h1>${e(page.title)}</h1>
<p>${e(page.text)}</p>
<div class="row">${retry}<a class="button secondary" href="${e(page.mount)}">Go to the dashboard</a></div>
</section></main></body></html>`;
}
