import { z } from 'zod';

export const AddDomainRequest = z.strictObject({ domain: z.string().min(1).max(300) });
export type AddDomainRequest = z.infer<typeof AddDomainRequest>;

export interface AllowedDomain {
  domain: string;
  createdAt: string;
}

export interface AllowedDomainsResponse {
  domains: AllowedDomain[];
}
