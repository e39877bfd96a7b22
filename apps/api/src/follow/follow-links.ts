import { TokenSigner } from '../common/signed-token.js';

/** A guest's confirmation link, and every mail's unsubscribe link: the follow they act on. */
export interface FollowLinkClaims {
  f: string;
}

/** Unsubscribe links keep working for as long as mails that carry them are read. */
export const UNSUBSCRIBE_TTL_SECONDS = 5 * 366 * 86_400;

export class FollowLinks {
  readonly confirm: TokenSigner<FollowLinkClaims>;
  readonly unsubscribe: TokenSigner<FollowLinkClaims>;

  constructor(
    secret: string,
    private readonly publicUrl: string,
  ) {
    this.confirm = new TokenSigner(secret, 'follow-confirm');
    this.unsubscribe = new TokenSigner(secret, 'follow-unsubscribe');
  }

  confirmUrl(followId: string, ttlSeconds: number): string {
    const { token } = this.confirm.sign({ f: followId }, ttlSeconds);
    return `${this.publicUrl}/api/follow/confirm?token=${encodeURIComponent(token)}`;
  }

  unsubscribeUrl(followId: string): string {
    const { token } = this.unsubscribe.sign({ f: followId }, UNSUBSCRIBE_TTL_SECONDS);
    return `${this.publicUrl}/api/follow/unsubscribe?token=${encodeURIComponent(token)}`;
  }
}
