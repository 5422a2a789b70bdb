-- wrk script: every request is one acknowledged, durable move of emoji 1 (see scripts/benchmark-http).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"baseVersion":0,"edit":{"type":"moveEmojis","ids":[1],"offset":{"x":1,"y":-1}}}'
