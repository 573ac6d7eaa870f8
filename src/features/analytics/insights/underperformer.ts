// underperformer: a post whose engagements sit below −2 robust z-scores of its account's median (outliers.ts):
// worth a look at its timing, format or wording.
import { outliers } from './outliers.ts';

export const underperformer = outliers('underperformer');
