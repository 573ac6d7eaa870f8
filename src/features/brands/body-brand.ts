// The brand a created resource belongs to (a repurpose job, an automation): the body's `brand_id`, else the
// `x-herald-brand-id` header's, else the workspace's default; a body brand that differs from the header's is a 400,
// and a brand the key may not reach (or that is not in the workspace) a 403.
import type { ServiceContext } from '../../app/context.ts';
import { AppError } from '../../app/errors.ts';
import { findBrandRow } from './brands.repo.ts';

export async function bodyBrand(ctx: ServiceContext, bodyBrandId: string | undefined) {
  if (bodyBrandId !== undefined && ctx.brandFromHeader && bodyBrandId !== ctx.brandId)
    throw new AppError(
      'PUBLIC_API_BODY_INVALID',
      `brand_id ${bodyBrandId} differs from the x-herald-brand-id header ${ctx.brandId}.`,
      { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] },
    );
  const id = bodyBrandId ?? ctx.brandId;
  if (id === null)
    throw new AppError(
      'PUBLIC_API_BRAND_FORBIDDEN',
      'This key may not use the default brand: send x-herald-brand-id or brand_id.',
    );
  const brand =
    !ctx.allowedBrandIds || ctx.allowedBrandIds.includes(id)
      ? await findBrandRow(ctx.db, ctx.workspaceId, id)
      : undefined;
  if (!brand)
    throw new AppError(
      'PUBLIC_API_BRAND_FORBIDDEN',
      'That brand is not in this workspace or not reachable by this key.',
    );
  return brand;
}
