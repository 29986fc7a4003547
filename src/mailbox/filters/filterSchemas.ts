import { z } from 'zod';
import { paginationShape } from '../shared/pagination';
import { reject } from '../shared/validation';
import { parseLabelIds, relatedLimit } from './labelIdsRule';

/** `ids`; a repeated parameter (`ids=1&ids=2`) reads as one list. */
const labelIds = z
  .unknown()
  .optional()
  .transform((value, ctx): number[] => {
    const raw = Array.isArray(value) ? value.join(',') : value;
    if (raw === undefined || raw === '') return reject(ctx, 'ids query parameter is required');
    const ids = parseLabelIds(String(raw));
    if (ids.length === 0) return reject(ctx, 'At least one valid label ID is required');
    return ids;
  });

const limitOfRelated = z.unknown().optional().transform(relatedLimit);

export const filterQuerySchema = z.object({ ids: labelIds, ...paginationShape });
export const filterCountQuerySchema = z.object({ ids: labelIds });
export const filterRelatedQuerySchema = z.object({ ids: labelIds, limit: limitOfRelated });
export const labelRelatedQuerySchema = z.object({ limit: limitOfRelated });
export const labelMessagesQuerySchema = z.object(paginationShape);
