/** Pagination facts of a list answer. */
export interface PageMeta {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

/** The REST success envelope. */
export interface SuccessBody<T> {
  success: true;
  data: T;
  message?: string;
  meta?: PageMeta;
}

export function success<T>(data: T, extra: { message?: string; meta?: PageMeta } = {}): SuccessBody<T> {
  return { success: true, data, ...extra };
}
