import type { FastifyInstance } from 'fastify';

/** A browser in miniature: keeps cookies between injected requests. */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(private readonly app: FastifyInstance) {}
  async request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await this.app.inject({
      method,
      url,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    for (const c of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return response;
  }
  get = (url: string) => this.request('GET', url);
  post = (url: string, form: Record<string, string>, headers?: Record<string, string>) =>
    this.request('POST', url, form, headers);

  async signIn(email: string, password: string, area: 'portal' | 'admin' = 'portal') {
    await this.get(`/${area}/login`);
    return this.post(`/${area}/login`, { _csrf: this.cookies.get('psl_login')!, email, password });
  }
}

/** The CSRF token of the first form of a page. */
export const csrfOf = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
