import type { Express, IRouter, NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { RouteParameters } from 'express-serve-static-core';
import { requireMerchant, type CredentialKind } from '../http/auth';
import { AdminAuthenticationError, OperatorForbiddenError } from '../http/errors';
import { allow } from './middleware';
import type { MerchantPermission } from './merchant-roles';
import { OPERATOR_PERMISSION_NAMES, operatorRoleMay, operatorRolesWith, type OperatorPermission } from './operator-roles';

declare module 'express-serve-static-core' {
  interface Request {
    /** How the admin guard authenticated an admin API call: the admin token, or an operator's dashboard session. */
    adminAuthentication?: 'token' | 'session';
  }
}

/**
 * What a route needs, declared where the route is registered. The walker (declaredRoutes) reads
 * it, and the check it names runs before the route's handlers, on the route Express matched: no
 * table of path patterns, so letter case, trailing slashes and encoding cannot reach a handler
 * past its check.
 */
export type DeclaredAccess =
  /** Anyone: `reason` says why (a health check, a page shell, a sign-in behind its own throttle, a signed processor event). */
  | { kind: 'public'; reason: string }
  /** A merchant credential of the public API: the server-side API key or the browser-safe client secret. */
  | { kind: CredentialKind }
  /** The hosted checkout's own secret, for the wallet API. */
  | { kind: 'checkout_secret' }
  /** A merchant's person signed in to the merchant dashboard, acting on their own account (any role). */
  | { kind: 'merchant_session' }
  /** A merchant's person whose role holds `permission`. */
  | { kind: 'merchant'; permission: MerchantPermission }
  /** The admin token (automation), or an operator's dashboard session whose role holds `permission`. */
  | { kind: 'operator'; permission: OperatorPermission };

/** A declaration and the checks that enforce it, run in order before the route's handlers. */
export interface Access {
  readonly declared: DeclaredAccess;
  readonly guards: readonly RequestHandler[];
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

/** The declarations, by the route (or the mounted handler) they were registered with. */
const declarations = new WeakMap<object, DeclaredAccess>();

/** Registers a route with its access: the declaration is recorded on the route, and its checks run first. */
export function route<Path extends string>(router: IRouter, method: Method, path: Path | Path[], access: Access, ...handlers: Array<RequestHandler<RouteParameters<Path>>>): void {
  const registered = router.route(path);
  declarations.set(registered, access.declared);
  registered[method](...access.guards, ...(handlers as RequestHandler[]));
}

/** Mounts handlers for every path under `path` (static files) with their access, recorded like a route's. */
export function serve(router: Router, path: string, access: Access, ...handlers: RequestHandler[]): void {
  router.use(path, ...access.guards, ...handlers);
  declarations.set(router.stack[router.stack.length - 1]!, access.declared);
}

export const access = (declared: DeclaredAccess, ...guards: RequestHandler[]): Access => ({ declared, guards });

/** Open to anyone, for the reason given. */
export const publicRoute = (reason: string): Access => access({ kind: 'public', reason });

/**
 * A merchant credential of the kind. A router may authenticate every request first (so an unknown
 * path is refused like a known one); the route's own check then passes a request already
 * authenticated with this kind and proven as this route needs, and authenticates one that is not,
 * so a route never depends on it: a route of another router whose proof is the cache's catch-up
 * does not take a credential left to a statement proof (requireMerchant) that never ran.
 */
export function merchantCredential(db: Parameters<typeof requireMerchant>[0], kind: CredentialKind, message?: string, proof?: 'catch-up' | 'statement'): Access {
  const authenticate = requireMerchant(db, kind, message, proof);
  const done = (req: Request) => req.merchant && req.merchantCredential === kind && (req.credentialProven || proof === 'statement');
  return access({ kind }, (req, res, next) => (done(req) ? next() : authenticate(req, res, next)));
}

/** The merchant dashboard's session (any role: a person's own account). */
export const merchantSession = (session: RequestHandler): Access => access({ kind: 'merchant_session' }, session);

/** The merchant dashboard's session and a role holding `permission`. */
export const merchant = (session: RequestHandler, permission: MerchantPermission): Access => access({ kind: 'merchant', permission }, session, allow(permission));

/**
 * An admin API route: the admin guard in front of /admin/v1 authenticated the call (the admin
 * token may do everything); a dashboard session's role must hold `permission`, else 403 with a
 * hint naming the roles that may. A call the admin guard did not authenticate is refused.
 */
export function operator(permission: OperatorPermission): Access {
  return access({ kind: 'operator', permission }, (req: Request, _res: Response, next: NextFunction) => {
    if (req.adminAuthentication === 'token') return next();
    const role = req.adminAuthentication === 'session' ? req.operatorSession?.user.role : undefined;
    if (!role) return next(new AdminAuthenticationError());
    if (operatorRoleMay(role, permission)) return next();
    next(new OperatorForbiddenError(`Your role (${role}) does not allow ${OPERATOR_PERMISSION_NAMES[permission]}.`, `Only ${operatorRolesWith(permission).join(', ')} may; an operator_admin manages the operator's people.`));
  });
}

/** A registered route (or mounted handler) of the app, with its full path and its declaration (undefined: none). */
export interface RegisteredRoute {
  method: string;
  path: string;
  access: DeclaredAccess | undefined;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string | string[];
}

const joinPath = (prefix: string, path: string) => `${prefix}/${path}`.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');

/**
 * Every route the app registered, through every mounted router: its routes, and the handlers
 * mounted with `serve`. Other middleware (parsers, logs, guards in front of a mount) is no route.
 */
export function declaredRoutes(app: Express): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      const mount = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath ?? '/'];
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const method of Object.keys(layer.route.methods)) out.push({ method: method.toUpperCase(), path: joinPath(prefix, path), access: declarations.get(layer.route) });
        }
      } else if (declarations.has(layer)) {
        for (const path of mount) out.push({ method: 'USE', path: joinPath(prefix, path), access: declarations.get(layer) });
      } else if (layer.handle?.stack) {
        for (const path of mount) walk(layer.handle.stack, joinPath(prefix, path));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out;
}

/** Fails closed at start-up: an app with a route that declares no access does not start. */
export function assertEveryRouteDeclared(app: Express): void {
  const undeclared = declaredRoutes(app).filter((r) => r.access === undefined);
  if (undeclared.length > 0) throw new Error(`Routes without a declared access (register them with route()): ${undeclared.map((r) => `${r.method} ${r.path}`).join(', ')}`);
}
