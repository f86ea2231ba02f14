import { ENVIRONMENTS, type Agreement, type ApiKeyInfo, type Environment } from '../partners/index.ts';
import type { CatalogEntry } from './catalog.ts';
import { html } from '../platform/html.ts';
import { label, t } from '../i18n/index.ts';
import { asset, csrfField, formatDate, mayChange, page, problemList, tableRegion, type PageContext } from './layout.ts';

/** The developer portal's pages: the API catalog, an API's page and reference, the API keys. */

export interface KeysData {
  keys: ApiKeyInfo[];
  agreement: Agreement | undefined;
}

export function catalogPage(ctx: PageContext, apis: CatalogEntry[]): string {
  const w = t(ctx.lang);
  return page(
    ctx,
    w.catalogTitle,
    html`<h1>${w.catalogTitle}</h1>
<p>${w.catalogIntro}</p>
${
  apis.length === 0
    ? html`<p class="card">${w.catalogEmpty}</p>`
    : html`<ul class="cards" aria-label="${w.catalogTitle}">${apis.map(
        (a) =>
          html`<li class="card api" data-api="${a.api}"><h2><a href="/portal/apis/${a.api}">${a.name}</a></h2><p>${a.summary[ctx.lang]}</p><p><code>${a.prefix}</code></p></li>`,
      )}</ul>`
}`,
  );
}

function definitionMenu(ctx: PageContext, entry: CatalogEntry) {
  const w = t(ctx.lang);
  return html`<details class="menu"><summary>${w.apiDefinition}</summary><ul><li><a href="/portal/apis/${entry.api}/openapi.json" download>${w.downloadOpenapi}</a></li></ul></details>`;
}

export function apiPage(ctx: PageContext, entry: CatalogEntry, publicUrl: string): string {
  const w = t(ctx.lang);
  const base = `${publicUrl}${entry.prefix}`;
  const curlOf = (example: CatalogEntry['example']) =>
    `curl -X ${example.method} ${base}${example.path} \\\n  -H "Authorization: Bearer $PARASOL_KEY"` +
    (example.body ? ` \\\n  -H "Content-Type: application/json" \\\n  -d '${JSON.stringify(example.body)}'` : '');
  const curl = curlOf(entry.example);
  return page(
    ctx,
    entry.name,
    html`<h1>${entry.name}</h1>
<p>${definitionMenu(ctx, entry)} <a class="button" href="/portal/apis/${entry.api}/reference">${w.reference}</a></p>
<h2>${w.whatItDoes}</h2>
<p>${entry.summary[ctx.lang]}</p>
<h2>${w.gettingStarted}</h2>
<p>${label(ctx.lang, w.baseUrl)} <code id="base-url">${base}</code></p>
<ol>
<li>${w.steps.key} <a href="/portal/keys">${w.nav.keys}</a></li>
<li>${w.steps.auth} <code>Authorization: Bearer psl_sbx_…</code></li>
<li>${w.steps.call}<pre><code>${curl}</code></pre></li>
${(entry.next ?? []).map((n) => html`<li>${n.what[ctx.lang]}<pre><code>${curlOf(n)}</code></pre></li>`)}
<li>${w.steps.reference} <a href="/portal/apis/${entry.api}/reference">${w.reference}</a></li>
</ol>`,
  );
}

/**
 * Scalar takes the whole page and brings its own styles: the page keeps only a thin bar of our
 * chrome (skip link, back link, the API definition menu) with inline styles scoped to it.
 */
export function referencePage(ctx: PageContext, entry: CatalogEntry): string {
  const w = t(ctx.lang);
  const configuration = JSON.stringify({
    withDefaultFonts: false,
    hideClientButton: true,
    telemetry: false,
    hideDarkModeToggle: true,
    forceDarkModeState: 'light',
    showDeveloperTools: 'never',
    showToolbar: 'never',
    agent: { disabled: true },
    documentDownloadType: 'none',
    metaData: { title: entry.name },
  });
  return html`<!doctype html>
<html lang="${ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${entry.name} — ${w.reference} — Parasol</title>
<style>
  .psl-bar { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.25rem; background: #0f172a; color: #f8fafc; font-family: system-ui, sans-serif; }
  .psl-bar a { color: #f8fafc; }
  .psl-bar h1 { font-size: 1.05rem; margin: 0; }
  .psl-skip { position: absolute; left: -999px; } .psl-skip:focus { left: .5rem; top: .5rem; background: #000; color: #fff; padding: .5rem; z-index: 100; }
</style>
</head>
<body>
<a class="psl-skip" href="#reference">${w.skip}</a>
<div class="psl-bar"><a href="/portal/apis/${entry.api}">← ${entry.name}</a><h1>${w.reference}</h1><a href="/portal/apis/${entry.api}/openapi.json" download>${label(ctx.lang, w.apiDefinition)} ${w.downloadOpenapi}</a></div>
<div id="reference"><script id="api-reference" data-url="${entry.prefix}/openapi.json" data-configuration="${configuration}"></script></div>
<script src="${asset('scalar.js')}"></script>
</body>
</html>`.value;
}

export function keysPage(
  ctx: PageContext,
  { keys, agreement }: KeysData,
  created?: { key: ApiKeyInfo; plaintext: string },
  /** A refused key form's problems, in the page's language, each field named by its label. */
  problems?: string[],
): string {
  const w = t(ctx.lang);
  const allowed = (env: Environment) => env === 'sandbox' || agreement?.status === 'signed';
  const rows = keys.map(
    (k) => html`<tr data-key="${k.id}">
<td>${k.environment}</td><td><code>${k.display}</code></td><td>${k.label ?? ''}</td><td>${formatDate(k.createdAt, ctx.lang, w.never)}</td><td>${formatDate(k.lastUsedAt, ctx.lang, w.never)}</td>
<td>${k.revokedAt ? w.revoked : w.active}</td>
<td>${k.revokedAt || !mayChange(ctx, 'keys') ? '' : html`<form method="post" action="/portal/keys/${k.id}/revoke" data-confirm="${w.revokeConfirm}">${csrfField(ctx.session!.csrfToken)}<button type="submit" class="danger" aria-label="${w.revoke} ${k.display}">${w.revoke}</button></form>`}</td>
</tr>`,
  );
  return page(
    ctx,
    w.keysTitle,
    html`<h1>${w.keysTitle}</h1>
<p>${w.keysIntro}</p>
${
  created
    ? html`<section class="card" aria-labelledby="new-key-title"><h2 id="new-key-title">${w.newKeyTitle} (${created.key.environment})</h2>
<p role="alert">${w.newKeyWarning}</p>
<p><code class="key" id="new-key">${created.plaintext}</code></p>
<p><button type="button" data-copy="new-key" data-copied="${w.copied}">${w.copy}</button> <span id="new-key-status" role="status"></span></p></section>`
    : ''
}
${
  mayChange(ctx, 'keys')
    ? html`<section class="card"><h2>${w.createKey}</h2>${problemList(problems)}
<form method="post" action="/portal/keys" class="row">${csrfField(ctx.session!.csrfToken)}
<div><label for="key-env">${w.environment}</label><select id="key-env" name="environment">${ENVIRONMENTS.map(
        (env) =>
          html`<option value="${env}"${allowed(env) ? '' : html` disabled`}>${env}${allowed(env) ? '' : ` — ${w.envNotAllowed}`}</option>`,
      )}</select></div>
<div><label for="key-label">${w.label}</label><input id="key-label" name="label" maxlength="100"></div>
<div><button type="submit">${w.createKey}</button></div>
</form></section>`
    : html`<p class="muted">${w.partnerUsers.forbidden}</p>`
}
${
  keys.length === 0
    ? html`<p>${w.noKeys}</p>`
    : tableRegion(
        w.keysTitle,
        html`<table><caption class="visually-hidden">${w.keysTitle}</caption><thead><tr><th scope="col">${w.environment}</th><th scope="col">${w.key}</th><th scope="col">${w.label}</th><th scope="col">${w.created}</th><th scope="col">${w.lastUsed}</th><th scope="col">${w.status}</th><th scope="col"><span class="visually-hidden">${w.revoke}</span></th></tr></thead><tbody>${rows}</tbody></table>`,
      )
}`,
  );
}
