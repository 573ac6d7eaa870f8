// The dashboard's areas of part two, each in its own folder with its routes and its navigation entry, in the order
// the navigation shows them.
import * as calendar from './areas/calendar/index.tsx';
import * as queues from './areas/queues/index.tsx';
import * as approvals from './areas/approvals/index.tsx';
import * as inbox from './areas/inbox/index.tsx';
import * as analytics from './areas/analytics/index.tsx';
import * as automations from './areas/automations/index.tsx';
import * as brands from './areas/brands/index.tsx';
import * as repurpose from './areas/repurpose/index.tsx';

const AREAS = [calendar, queues, approvals, inbox, analytics, automations, brands, repurpose];

export const areaRoutes = AREAS.flatMap((area) => area.routes);
export const areaNav = AREAS.map((area) => [area.nav.to, area.nav.label] as const);
