#!/bin/bash
# The Docker image's health check (HEALTHCHECK in deploy/Dockerfile): GET /healthz on the server's
# own port must answer 200 with "status":"ok" (503 "degraded" while storage refuses writes: the
# container is unhealthy then). bash's /dev/tcp makes the request, so the image needs no HTTP
# client. Exit status 0 healthy, 1 not.
set -u

port=${MANCALA_PORT:-8080}
exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
printf 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
reply=$(timeout 4 cat <&3)
case $reply in
  "HTTP/1.1 200 "*'"status":"ok"'*) exit 0 ;;
esac
echo "healthcheck: unexpected answer from port $port: ${reply%%$'\r'*}" >&2
exit 1
