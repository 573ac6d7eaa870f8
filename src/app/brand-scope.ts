// Which brands a list reads, decided the same way by every list (docs/api.md "Brands"): the query's `brand_id`, else
// the brand named in the `x-herald-brand-id` header, else every brand the key reaches. A query brand that differs
// from the header's is a 400; a brand the key may not reach is a 403.
import type { ServiceContext } from './context.ts';
import { AppError } from './errors.ts';

/** The brands to read; null: every brand of the workspace. */
export function brandScope(ctx: ServiceContext, brandId: string | undefined): readonly string[] | null {
  if (ctx.brandFromHeader && brandId !== undefined && brandId !== ctx.brandId) {
    throw new AppError(
      'PUBLIC_API_QUERY_INVALID',
      `brand_id ${brandId} differs from the x-herald-brand-id header ${ctx.brandId}.`,
      { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] },
    );
  }
  const brand = brandId ?? (ctx.brandFromHeader && ctx.brandId !== null ? ctx.brandId : undefined);
  if (brand !== undefined && ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(brand))
    throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not reachable by this key.');
  return brand !== undefined ? [brand] : ctx.allowedBrandIds;
}
