import { z } from 'zod';
import { textProblem } from './text.js';

export const AddDomainRequest = z.strictObject({
  domain: z
    .string()
    .min(1)
    .max(300)
    .refine((d) => textProblem(d) === null, 'Use one line, without invisible control characters.'),
});
export type AddDomainRequest = z.infer<typeof AddDomainRequest>;

export interface AllowedDomain {
  domain: string;
  createdAt: string;
}

export interface AllowedDomainsResponse {
  domains: AllowedDomain[];
}
