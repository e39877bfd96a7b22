import request, { type Response } from 'supertest';

/** The `rb_session` cookie pair (`rb_session=…`) a response set, for sending back. */
export function sessionCookie(res: Response): string {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  const c = raw?.find((h) => h.startsWith('rb_session='));
  if (!c) throw new Error(`no rb_session cookie in ${JSON.stringify(raw)}`);
  return c.split(';')[0]!;
}

export interface Session {
  token: string;
  cookie: string;
  userId: string;
}

let seq = 0;

export function newUserBody(prefix = 'u'): {
  email: string;
  password: string;
  name: string;
  username: string;
} {
  const username = `${prefix}${Date.now().toString(36)}${seq++}`;
  return {
    email: `${username}@Example.com`,
    password: 'correct horse battery',
    name: `User ${username}`,
    username,
  };
}

export async function signUpSession(
  url: string,
  body = newUserBody(),
): Promise<Session & { body: typeof body }> {
  const res = await request(url).post('/api/auth/sign-up/email').send(body);
  if (res.status !== 200) throw new Error(`sign-up ${res.status}: ${res.text}`);
  return { token: res.body.token, cookie: sessionCookie(res), userId: res.body.user.id, body };
}

export async function signInSession(
  url: string,
  email: string,
  password: string,
): Promise<Session> {
  const res = await request(url).post('/api/auth/sign-in/email').send({ email, password });
  if (res.status !== 200) throw new Error(`sign-in ${res.status}: ${res.text}`);
  return { token: res.body.token, cookie: sessionCookie(res), userId: res.body.user.id };
}
