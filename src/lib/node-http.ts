// node:http and node:https for Herald's modules, taken through process.getBuiltinModule rather than an `import`.
// Importing either builds its module namespace, which reads node:http's lazy WebSocket, MessageEvent and CloseEvent
// exports and so loads Node's bundled fetch client (undici: 0.75 MB of source, with HTTP/2 and web streams), a
// client Herald never uses, at some 10 MiB of idle memory and tens of milliseconds of every start (docs/decisions.md
// "Start-up loads what serving needs"). Types still come from `import type`, which costs nothing at run time.
export const http = process.getBuiltinModule('node:http');
export const https = process.getBuiltinModule('node:https');
