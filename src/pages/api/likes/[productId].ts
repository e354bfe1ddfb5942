import type { APIContext, APIRoute } from 'astro';
import { requireShopper } from '@/app/shopper.server';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { LOGIN_TO_LIKE } from '@/features/likes/likes';
import { type LikeResult, like, unlike } from '@/features/likes/likes.server';
import type { Sql } from '@/server/db/database.server';
import { json, problem } from '@/server/http.server';
import { productIdInPath } from '@/server/product-id.server';

export const prerender = false;

type LikeAction = (tx: Sql, catalogue: CatalogueIndex, productId: number) => Promise<LikeResult>;

/** PUT likes, DELETE unlikes; both are idempotent and answer {productId, liked, count}. */
function respond(action: LikeAction): APIRoute {
  return async (ctx: APIContext) => {
    const me = await requireShopper(ctx, LOGIN_TO_LIKE);
    if (me instanceof Response) return me;
    const id = productIdInPath(ctx.params.productId);
    if (id instanceof Response) return id;
    const catalogue = await getCatalogueIndex();
    const result = await me.run((tx) => action(tx, catalogue, id));
    if (!result.ok) return problem(404, 'not_found', 'There is no such product.');
    return json(result.value);
  };
}

/** Likes a product for the signed-in shopper (a second like changes nothing). */
export const PUT = respond(like);

/** Takes the signed-in shopper's like back (unliking twice changes nothing). */
export const DELETE = respond(unlike);
