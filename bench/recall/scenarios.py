"""What the recall store holds: target sessions for every query, their near misses, and the queries.

Each ``kind_*`` function writes the sessions one kind of query needs (a target, usually with one or two
near misses that share its vocabulary but not its answer) and the queries themselves; :func:`background`
adds ordinary sessions of every project and source so that common words are common. The queries' kinds:

- ``keyword``: words that occur in the target's user or assistant text.
- ``paraphrase``: what the target is about, in other words (synonyms, a different angle); hard on purpose.
- ``error``: pasted error text, the target being the session where it came out of a failing command (some
  pasted from a later run: other line numbers, sizes or addresses).
- ``path``: a file path (absolute, relative or bare name) the target edited with ``patch`` or
  ``write_file``; near misses edit sibling files.
- ``tool_output``: a fact that is only in a tool's output, never in the user's or the model's words.
- ``cjk``: Chinese and Japanese conversations, queried in their language.
- ``updated_fact``: a fact that changed; the older session states the old value with the same words, the
  newer one (the only target) the new value.
- ``profile``: a fact only in the ``work`` profile's store.
"""

from __future__ import annotations

import random
from typing import Any

from catalog import Catalog, Sess

SHOP = "/home/dev/src/webshop"
INFRA = "/home/dev/src/infra"
ML = "/home/dev/src/ml-pipeline"
APP = "/home/dev/src/mobile-app"
BLOG = "/home/dev/src/blog"
DOT = "/home/dev/dotfiles"
NOTES = "/home/dev/notes"
BILL = "/home/dev/work/billing-svc"
DATA = "/home/dev/work/data-platform"
AUTH = "/home/dev/work/auth-gateway"
CHAT = "5512093377"  # the user's Telegram chat with the gateway


def tg(cat: Catalog, key: str, **kw: Any) -> Sess:
    """A Telegram session (no cwd)."""
    return cat.s(key, source="telegram", chat=CHAT, **kw)


# -- keyword ---------------------------------------------------------------------------------------------
def kind_keyword(cat: Catalog) -> None:
    s = cat.s("kw-celery-beat", cwd=SHOP, title="Duplicate cart reminders")
    s.u("Customers get the abandoned-cart reminder email sent twice. I think celery beat schedules it twice.")
    s.sh(
        "grep -rn reminder shop/tasks.py shop/celery.py",
        "shop/tasks.py:88:def send_abandoned_cart_reminders():\n"
        "shop/celery.py:31:    'cart-reminders': {'task': 'shop.tasks.send_abandoned_cart_reminders',",
    )
    s.sh(
        "docker compose ps --format '{{.Name}} {{.Command}}'",
        "webshop-web-1 gunicorn\nwebshop-beat-1 celery -A shop beat\nwebshop-beat-2 celery -A shop beat\n"
        "webshop-worker-1 celery -A shop worker",
    )
    s.a(
        "Two beat containers are running after the last scale-up, so every periodic task fires twice. "
        "Celery beat must be a singleton: pin the beat service to one replica, and switch to the "
        "django-celery-beat DatabaseScheduler so a second beat at least shares the schedule lock."
    )
    s.patch(
        "docker-compose.yml",
        "  beat:\n    deploy:\n      replicas: 2",
        "  beat:\n    deploy:\n      replicas: 1",
    )
    s.a("Beat is back to one replica; the abandoned-cart reminder now goes out once.")
    cat.q("keyword", "celery beat abandoned cart reminder sent twice", s)

    d = cat.s("kw-celery-concurrency", cwd=SHOP, title="Celery worker concurrency")
    d.u("The celery worker is slow with the image thumbnails queue. Should I raise concurrency?")
    d.sh(
        "celery -A shop inspect stats | grep -A3 pool",
        '"pool": {"max-concurrency": 2, "processes": [41, 42]}',
    )
    d.a(
        "The worker pool has only 2 processes. Thumbnails are CPU-bound; set --concurrency=4 on the 4-core "
        "host and route thumbnails to their own queue so the email tasks are not stuck behind them."
    )

    s = cat.s("kw-brotli", cwd=INFRA, title="Precompressed static assets")
    s.u("Can nginx serve the brotli precompressed assets that our build already writes (.br files)?")
    s.a(
        "Yes, with the ngx_brotli module: `brotli_static on;` serves `app.js.br` when the client sends "
        "`Accept-Encoding: br`, next to `gzip_static on;` for the `.gz` files. Stock Debian nginx lacks the "
        "module, so we install libnginx-mod-http-brotli-static."
    )
    s.patch(
        "ansible/roles/nginx/templates/static.conf.j2",
        "    gzip_static on;",
        "    gzip_static on;\n    brotli_static on;",
    )
    cat.q("keyword", "nginx brotli precompressed assets", s)

    d = cat.s("kw-nginx-ratelimit", cwd=INFRA, title="Rate limiting the login endpoint")
    d.u("Add nginx rate limiting on /accounts/login, bots are hammering it.")
    d.patch(
        "ansible/roles/nginx/templates/site.conf.j2",
        "    location /accounts/login {",
        "    location /accounts/login {\n        limit_req zone=login burst=5 nodelay;",
    )
    d.a("Added a `limit_req` zone of 10 requests per minute per IP with a burst of 5 for the login location.")

    s = cat.s("kw-bf16", cwd=ML, title="NaN loss with mixed precision")
    s.u(
        "Training goes NaN after about 2k steps since I enabled mixed precision. I'm using fp16 autocast "
        "with the GradScaler."
    )
    s.a(
        "On the A5000 you can use bf16 instead of fp16: bf16 has the same exponent range as fp32, so the "
        "loss does not overflow and you can drop the GradScaler entirely. Set "
        "`torch.autocast('cuda', dtype=torch.bfloat16)` and remove the scaler calls."
    )
    s.patch(
        "pipeline/train.py",
        "with torch.autocast('cuda', dtype=torch.float16):",
        "with torch.autocast('cuda', dtype=torch.bfloat16):",
    )
    s.a("Switched autocast to bf16 and removed the scaler; the NaN loss is gone in a 5k-step run.")
    cat.q("keyword", "bf16 NaN loss GradScaler", s)

    s = cat.s("kw-universal-links", cwd=APP, title="iOS universal links")
    s.u(
        "Universal links open Safari instead of the app. The apple-app-site-association file is on the "
        "server, what's wrong?"
    )
    s.sh(
        "curl -sI https://shop.example.com/.well-known/apple-app-site-association",
        "HTTP/2 200\ncontent-type: application/octet-stream\ncontent-length: 312",
    )
    s.a(
        "The apple-app-site-association file is served as application/octet-stream; Apple's CDN wants "
        "application/json, and the app id must be TEAMID.bundle id. Fix the content type on the web server "
        "and check the Associated Domains entitlement has `applinks:shop.example.com`."
    )
    cat.q("keyword", "universal links apple-app-site-association", s)

    s = cat.s("kw-hugo-figure", cwd=BLOG, title="Figure shortcode")
    s.u("Write a Hugo shortcode for figures with a caption and native lazy loading.")
    s.write(
        "layouts/shortcodes/figure.html",
        '<figure>\n  <img src="{{ .Get "src" }}" alt="{{ .Get "alt" }}" loading="lazy" decoding="async">\n'
        '  {{ with .Get "caption" }}<figcaption>{{ . }}</figcaption>{{ end }}\n</figure>\n',
    )
    s.a(
        'The figure shortcode takes src, alt and caption, and sets loading="lazy" on the img. Use it as '
        '`{{< figure src="/img/x.jpg" caption="..." >}}`.'
    )
    cat.q("keyword", "hugo figure shortcode lazy loading", s)

    s = cat.s("kw-telescope", cwd=DOT, title="Telescope ignores")
    s.u("Telescope find_files is unusable in JS repos, it lists everything in node_modules.")
    s.patch(
        "nvim/lua/plugins/telescope.lua",
        "defaults = {},",
        'defaults = { file_ignore_patterns = { "node_modules", "%.git/" } },',
    )
    s.a(
        "Added file_ignore_patterns so telescope will ignore node_modules and .git; it also respects "
        ".gitignore when "
        "ripgrep is installed, so `rg` on the PATH helps too."
    )
    cat.q("keyword", "telescope ignore node_modules", s)

    s = cat.s("kw-tf-lock", cwd=INFRA, title="Stuck Terraform lock")
    s.u("A CI job was cancelled mid-apply and now every plan waits on the state lock in DynamoDB.")
    s.a(
        "If no apply is really running, release it with `terraform force-unlock <LOCK_ID>`; the lock id is "
        "in the DynamoDB item. Do check the CI runner is gone first, a force-unlock during a live apply can "
        "corrupt the state."
    )
    s.sh(
        "terraform force-unlock -force 6f1f0d6e-2a7b-4c8e-9d61-0b2f9f5d3c11",
        "Terraform state has been successfully unlocked!",
    )
    cat.q("keyword", "terraform force-unlock dynamodb lock", s)

    d = cat.s("kw-tf-drift", cwd=INFRA, title="Terraform plan drift")
    d.u("terraform plan shows drift on the security group every time, even right after apply.")
    d.a(
        "The rule order from the AWS API differs from the config; define the rules as separate "
        "aws_vpc_security_group_ingress_rule resources and the plan stays clean."
    )

    s = cat.s("kw-stripe-refund", cwd=SHOP, title="Double refunds")
    s.u(
        "A customer got refunded twice when the admin double-clicked Refund. How do I prevent that with "
        "Stripe?"
    )
    s.a(
        "Pass an idempotency key on the refund call, derived from the order and the refund request, e.g. "
        "`idempotency_key=f'refund-{order.pk}-{request_id}'`. Stripe returns the first refund for a repeated "
        "key instead of creating a second one. Also disable the button on submit."
    )
    s.patch(
        "shop/payments/refunds.py",
        "stripe.Refund.create(payment_intent=pi, amount=amount)",
        "stripe.Refund.create(payment_intent=pi, amount=amount,\n"
        "                     idempotency_key=f'refund-{order.pk}-{request_id}')",
    )
    cat.q("keyword", "stripe refund idempotency key", s)

    s = tg(cat, "kw-sourdough", title="Sourdough starter")
    s.u("My sourdough starter smells like nail polish and barely rises. What hydration should I keep it at?")
    s.a(
        "An acetone smell means it's hungry. Feed it twice a day at 1:1:1 (starter:flour:water), which is "
        "100% hydration, with some whole rye in the flour. A stiffer starter at 60-65% hydration is more "
        "forgiving if your kitchen is warm."
    )
    cat.q("keyword", "sourdough starter hydration", s)

    d = tg(cat, "kw-bread-scoring", title="Scoring bread")
    d.u("How deep should I score a loaf before baking? Mine spreads flat.")
    d.a(
        "About 5 mm at a 30 degree angle with a lame. Spreading flat is usually under-proofing or weak "
        "shaping, not the scoring."
    )

    s = cat.s("kw-passport", cwd=NOTES, title="Passport renewal")
    s.u("Remind me what I need for the passport renewal appointment at the Bürgeramt.")
    s.read(
        "todo/passport.md",
        "# Passport\n- old passport\n- biometric photo (35x45)\n- 70 EUR fee, card ok\n"
        "- appointment booked online, Bürgeramt Mitte",
    )
    s.a(
        "For the passport renewal appointment bring the old passport, one biometric photo and the fee of "
        "70 EUR; cards are accepted."
    )
    cat.q("keyword", "passport renewal appointment", s)

    s = cat.s("kw-dvc-b2", cwd=ML, title="DVC remote")
    s.u("Set up a DVC remote on Backblaze B2 for the datasets, the laptop disk is full.")
    s.sh(
        "dvc remote add -d b2 s3://ml-datasets-dev && dvc remote modify b2 endpointurl "
        "https://s3.us-west-004.backblazeb2.com",
        "Setting 'b2' as a default remote.",
    )
    s.a(
        "Backblaze B2 speaks the S3 API, so the DVC remote is an s3:// URL with B2's endpointurl. Put the "
        "application key in `.dvc/config.local` with `dvc remote modify --local`."
    )
    cat.q("keyword", "dvc remote backblaze b2", s)

    s = cat.s("kw-wireguard-mtu", cwd=INFRA, title="WireGuard over LTE")
    s.u("WireGuard connects from the phone on LTE, the handshake completes, but web pages hang.")
    s.a(
        "Handshake fine but stalls on larger packets is the classic MTU problem: the LTE carrier adds "
        "encapsulation. Lower the tunnel MTU to 1380 on the client (`MTU = 1380` in the [Interface] "
        "section) and the pages will load."
    )
    cat.q("keyword", "wireguard mtu handshake", s)

    d = cat.s("kw-wireguard-peer", cwd=INFRA, title="New WireGuard peer")
    d.u("Add a WireGuard peer for the new tablet.")
    d.sh("wg genkey | tee tablet.key | wg pubkey", "q3VfYJ0o2n5QHcJ8xXh1mY1m0dq0o8K1K3ZtJ3y0x2A=")
    d.a("Generated the tablet's keys and added it as a peer with AllowedIPs 10.8.0.7/32.")

    s = cat.s("kw-vacuum", cwd=SHOP, title="Table bloat on order items")
    s.u("The order_items table is 40 GB but only has 9 million rows. Is that bloat?")
    s.sh("psql shop -c \"select pg_size_pretty(pg_total_relation_size('order_items'))\"", " 41 GB")
    s.a(
        "Yes, that's bloat from the nightly status updates. VACUUM FULL would lock order_items for the "
        "whole rewrite; use pg_repack instead, and lower autovacuum_vacuum_scale_factor on that table."
    )
    cat.q("keyword", "order_items table bloat vacuum", s)

    d = cat.s("kw-analyze", cwd=SHOP, title="Slow orders query")
    d.u("The orders list in the admin is slow since the import.")
    d.a(
        "The planner statistics are stale after the bulk import; run ANALYZE on orders and the query goes "
        "back to an index scan."
    )

    s = cat.s("kw-themed-icon", cwd=APP, title="Android themed icon")
    s.u("Android 13 shows our icon as a plain circle when themed icons are on.")
    s.write(
        "android/app/src/main/res/mipmap-anydpi-v26/ic_launcher.xml",
        '<adaptive-icon xmlns:android="http://schemas.android.com/apk/res/android">\n'
        '  <background android:drawable="@color/ic_launcher_background"/>\n'
        '  <foreground android:drawable="@mipmap/ic_launcher_foreground"/>\n'
        '  <monochrome android:drawable="@mipmap/ic_launcher_monochrome"/>\n</adaptive-icon>\n',
    )
    s.a(
        "Themed icons need a monochrome layer in the adaptive icon; I added it and you need to export "
        "a single-colour ic_launcher_monochrome from the design file."
    )
    cat.q("keyword", "android themed monochrome icon", s)

    s = cat.s("kw-zsh-startup", cwd=DOT, title="Slow shell startup")
    s.u("zsh startup takes almost two seconds. Find what's slow.")
    s.sh(
        "zsh -i -c 'zmodload zsh/zprof; source ~/.zshrc; zprof' | head -5",
        "num  calls   time  self  name\n 1)    1  1412.08  1412.08  nvm_auto\n 2)    2    88.13    44.06  "
        "compinit",
    )
    s.a(
        "nvm's auto-loading costs 1.4 s. Lazy-load nvm: define node/npm/nvm as functions that source nvm "
        "on first use. compinit is fine."
    )
    cat.q("keyword", "zsh startup slow nvm lazy load", s)


# -- paraphrase ------------------------------------------------------------------------------------------
def kind_paraphrase(cat: Catalog) -> None:
    s = cat.s("pp-buildx-cache", cwd=SHOP, title="CI layer caching")
    s.u("The docker build in GitHub Actions takes 9 minutes every run, even when only Python files changed.")
    s.patch(
        ".github/workflows/ci.yml",
        "      - run: docker build -t webshop .",
        "      - uses: docker/build-push-action@v6\n        with:\n          cache-from: type=gha\n"
        "          cache-to: type=gha,mode=max",
    )
    s.a(
        "Switched to buildx with the GitHub Actions cache backend: unchanged layers (the apt and pip "
        "install steps) are now restored from cache; the build takes about 80 seconds."
    )
    cat.q("paraphrase", "make container image builds faster on the pipeline by reusing earlier steps", s)

    s = cat.s("pp-certbot", cwd=INFRA, title="Certificate expired on the shop")
    s.u("The shop showed a security warning this morning, the Let's Encrypt certificate expired.")
    s.sh("systemctl list-timers | grep certbot", "", code=1)
    s.a(
        "There was no certbot timer on the new host. I installed certbot's systemd timer, which runs "
        "`certbot renew` twice a day and reloads nginx through a deploy hook."
    )
    cat.q("paraphrase", "auto renew TLS certs so https does not break again", s)

    s = cat.s("pp-worker-rss", cwd=SHOP, title="Worker memory growth")
    s.u("The celery worker's RSS grows from 300 MB to 4 GB over a day until the kernel OOM killer ends it.")
    s.a(
        "The PDF invoice task keeps every rendered page in a module-level list. Clear it per task, and set "
        "`worker_max_tasks_per_child=200` so the processes are recycled anyway."
    )
    cat.q("paraphrase", "background job process keeps eating more RAM until it crashes", s)

    s = cat.s("pp-de-locale", cwd=APP, title="First-run screens i18n")
    s.u("Add a de locale for the first-run screens, we launch in Austria next month.")
    s.write(
        "src/i18n/de.json", '{\n  "onboarding.welcome": "Willkommen",\n  "onboarding.next": "Weiter"\n}\n'
    )
    s.a(
        "Added de.json with the onboarding strings and registered it in i18next; the language follows "
        "the device setting."
    )
    cat.q("paraphrase", "translate the welcome flow into German", s)

    s = cat.s("pp-pgdump", cwd=INFRA, title="Nightly dumps to S3")
    s.u("Write a cron job that runs pg_dump of the shop nightly and uploads it to S3.")
    s.write(
        "ansible/roles/postgres/files/pg_dump_s3.sh",
        "#!/bin/sh\nset -eu\npg_dump -Fc shop | aws s3 cp - s3://dev-shop-dumps/shop-$(date +%F).dump\n",
    )
    s.a("The script streams a custom-format pg_dump straight to S3; the cron entry runs it at 02:30.")
    cat.q("paraphrase", "scheduled database backup every night to object storage", s)

    s = cat.s("pp-flaky-tz", cwd=SHOP, title="test_checkout_total flakes")
    s.u("test_checkout_total fails maybe once a week on CI, never locally.")
    s.a(
        "It fails when CI runs between 00:00 and 01:00 UTC: the test builds 'today' in Europe/Berlin but "
        "the code uses UTC dates, so around midnight the two dates differ. Freeze the time in the test."
    )
    cat.q("paraphrase", "a unit check that sometimes breaks depending on the hour it runs", s)

    s = cat.s("pp-lambda", cwd=INFRA, title="Image resize Lambda")
    s.u("The image-resize Lambda takes 6 seconds on the first request after idle.")
    s.a(
        "That's the cold start: the deployment package bundles all of boto3 and numpy. Trim the package to "
        "Pillow, and use provisioned concurrency of 1 during shop hours."
    )
    cat.q("paraphrase", "serverless function is slow on its first invocation after a pause", s)

    s = tg(cat, "pp-dolomites", title="Hiking week packing")
    s.u("What should I pack for a week of hut-to-hut hiking in the Dolomites in September?")
    s.a(
        "Layers: a merino base, a fleece, a light down jacket and a waterproof shell; trail shoes with "
        "grip, a sleeping-bag liner (huts require one), headlamp, and cash, since many rifugi don't take "
        "cards."
    )
    cat.q("paraphrase", "gear list for a mountain trekking trip in northern Italy", s)

    s = cat.s("pp-overfit", cwd=ML, title="Validation loss rising")
    s.u("Validation loss goes up after epoch 8 while the training loss keeps falling.")
    s.a(
        "Classic overfitting. Add dropout before the classifier head, stronger augmentation, and early "
        "stopping on validation loss with patience 3."
    )
    cat.q("paraphrase", "network memorizes training data and the eval metric gets worse later on", s)

    s = cat.s("pp-backoff", cwd=SHOP, title="Shipping API 429s")
    s.u("The shipping-label API returns 429 Too Many Requests during the evening peak.")
    s.patch(
        "shop/shipping/client.py",
        "resp = session.post(url, json=payload)",
        "resp = post_with_retry(session, url, json=payload, tries=5, base=0.5, jitter=True)",
    )
    s.a("Wrapped the call in exponential backoff with jitter, honouring Retry-After when it's sent.")
    cat.q("paraphrase", "handle throttling responses by retrying with increasing waits", s)

    s = tg(cat, "pp-breakfast", title="Breakfast ideas")
    s.u("Give me a washoku-style breakfast I can make in 20 minutes.")
    s.a(
        "Rice from the cooker, miso soup with tofu and wakame, a grilled salmon fillet, tamagoyaki and "
        "some pickles. Grill the salmon while the dashi heats."
    )
    cat.q("paraphrase", "ideas for a traditional morning meal from Japan", s)

    s = cat.s("pp-dark-mode", cwd=BLOG, title="Dark theme")
    s.u("Make the blog use a dark palette when the reader's system is set to dark.")
    s.patch(
        "assets/css/main.css",
        ":root { --bg: #fff; --fg: #222; }",
        ":root { --bg: #fff; --fg: #222; }\n@media (prefers-color-scheme: dark) {\n"
        "  :root { --bg: #111; --fg: #ddd; }\n}",
    )
    s.a("Added a prefers-color-scheme media query that swaps the CSS variables.")
    cat.q("paraphrase", "website should follow the OS night appearance setting", s)

    s = cat.s("pp-s2idle", cwd=DOT, title="Battery drain in suspend")
    s.u("The laptop loses 30% overnight with the lid closed.")
    s.sh("cat /sys/power/mem_sleep", "[s2idle] deep")
    s.a(
        "It's using s2idle. Switch to deep sleep with the kernel parameter mem_sleep_default=deep and "
        "disable wake on the USB controller."
    )
    cat.q("paraphrase", "notebook runs out of charge while suspended", s)

    s = cat.s("pp-main-branch", cwd=SHOP, title="master to main")
    s.u("Rename master to main in all the repos and fix the CI triggers.")
    s.sh(
        "git branch -m master main && git push -u origin main", "branch 'main' set up to track 'origin/main'."
    )
    s.a(
        "Renamed the branch, pushed it, and updated `on.push.branches` in the workflows; switch the "
        "default on GitHub and delete the old branch afterwards."
    )
    cat.q("paraphrase", "change the default branch name in our repositories", s)

    s = cat.s("pp-sticky-header", cwd=BLOG, title="Header follows scroll")
    s.u("Keep the blog's top navigation visible when scrolling down long posts.")
    s.patch(
        "assets/css/main.css", "header.site { }", "header.site { position: sticky; top: 0; z-index: 10; }"
    )
    s.a("position: sticky on the header keeps it pinned at the top without any JavaScript.")
    cat.q("paraphrase", "menu bar should stay pinned while the reader goes down the article", s)


# -- error -----------------------------------------------------------------------------------------------
DJANGO_CONN = (
    "Traceback (most recent call last):\n"
    '  File "/home/dev/src/webshop/.venv/lib/python3.12/site-packages/django/db/backends/base/base.py",'
    " line 275, in ensure_connection\n    self.connect()\n"
    'psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 failed: '
    "Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n\n"
    "The above exception was the direct cause of the following exception:\n\n"
    'django.db.utils.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 failed: '
    "Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?"
)


def kind_error(cat: Catalog) -> None:
    s = cat.s("err-django-conn", cwd=SHOP, title="Tests cannot reach Postgres")
    s.u("Run the test suite.")
    s.sh(
        "python manage.py test shop", "Creating test database for alias 'default'...\n" + DJANGO_CONN, code=1
    )
    s.sh("docker compose up -d db && sleep 3 && python manage.py test shop", "Ran 212 tests in 41.3s\n\nOK")
    s.a("The db container wasn't running; after starting it all 212 tests pass.")
    cat.q(
        "error",
        'django.db.utils.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 '
        "failed: Connection refused Is the server running on that host and accepting TCP/IP connections?",
        s,
        needle="port 5432 failed: Connection refused",
    )

    d = cat.s("err-django-relation", cwd=SHOP, title="Missing table after checkout")
    d.u("The staging server errors on /orders/.")
    d.sh(
        "python manage.py shell -c 'from shop.models import Order; Order.objects.count()'",
        'django.db.utils.ProgrammingError: relation "shop_order" does not exist\n'
        'LINE 1: SELECT COUNT(*) AS "__count" FROM "shop_order"',
        code=1,
    )
    d.sh("python manage.py migrate", "Applying shop.0041_order_status_index... OK")
    d.a("Staging had not been migrated after the deploy; migrations are applied now.")

    s = cat.s("err-markupsafe", cwd=BLOG, title="Docs build broken")
    s.u("The mkdocs build for the blog's docs section fails after I upgraded things.")
    s.sh(
        "mkdocs build",
        'Traceback (most recent call last):\n  File "/home/dev/src/blog/.venv/bin/mkdocs", line 5, in '
        "<module>\n"
        '    from mkdocs.__main__ import cli\n  File "/home/dev/src/blog/.venv/lib/python3.11/site-packages/'
        'jinja2/filters.py", line 13, in <module>\n    from markupsafe import soft_unicode\n'
        "ImportError: cannot import name 'soft_unicode' from 'markupsafe' "
        "(/home/dev/src/blog/.venv/lib/python3.11/site-packages/markupsafe/__init__.py)",
        code=1,
    )
    s.sh("pip install 'jinja2>=3.1'", "Successfully installed Jinja2-3.1.4")
    s.a("Old Jinja2 with new MarkupSafe; upgrading Jinja2 fixed the build.")
    cat.q(
        "error",
        "ImportError: cannot import name 'soft_unicode' from 'markupsafe' "
        "(/home/dev/src/blog/.venv/lib/python3.11/site-packages/markupsafe/__init__.py)",
        s,
        needle="cannot import name 'soft_unicode'",
    )

    d = cat.s("err-no-module-markdown", cwd=BLOG, title="Missing markdown module")
    d.u("The RSS script crashes.")
    d.sh("python scripts/build_feed.py", "ModuleNotFoundError: No module named 'markdown'", code=1)
    d.a("Installed markdown into the venv; the feed builds.")

    s = cat.s("err-ts2345", cwd=APP, title="Type errors in checkout")
    s.u("Typecheck the app before the release.")
    s.sh(
        "npx tsc --noEmit",
        "src/screens/Checkout.tsx(42,17): error TS2345: Argument of type 'string | undefined' is not "
        "assignable to parameter of type 'string'.\n  Type 'undefined' is not assignable to type 'string'.\n"
        "\nFound 1 error in src/screens/Checkout.tsx:42",
        code=2,
    )
    s.patch(
        "src/screens/Checkout.tsx",
        "applyCoupon(route.params.coupon)",
        "applyCoupon(route.params.coupon ?? '')",
    )
    s.a("Fixed the one type error: the coupon param is optional.")
    cat.q(
        "error",
        "src/screens/Checkout.tsx(44,17): error TS2345: Argument of type 'string | undefined' is not "
        "assignable to parameter of type 'string'.",
        s,
        needle="error TS2345",
        note="pasted from a later run: line 44 instead of 42",
    )

    d = cat.s("err-ts2322", cwd=APP, title="Profile screen types")
    d.u("Fix the type errors on the profile screen.")
    d.sh(
        "npx tsc --noEmit",
        "src/screens/Profile.tsx(18,9): error TS2322: Type 'number' is not assignable to type 'string'.",
        code=2,
    )
    d.patch("src/screens/Profile.tsx", "const age: string = user.age", "const age = String(user.age)")
    d.a("Converted the age to a string for the Text component.")

    s = cat.s("err-tf-foreach", cwd=INFRA, title="for_each over subnet ids")
    s.u("terraform plan for the new VPC module fails.")
    s.sh(
        "terraform plan",
        "\u2577\n\u2502 Error: Invalid for_each argument\n\u2502 \n\u2502   on modules/vpc/nat.tf line "
        "12, in "
        'resource "aws_nat_gateway" "this":\n\u2502   12:   for_each = toset(aws_subnet.public[*].id)\n'
        '\u2502 \n\u2502 The "for_each" set includes values derived from resource attributes that cannot be '
        "determined until apply, and so Terraform cannot determine the full set of keys that will identify "
        "the instances of this resource.\n\u2575",
        code=1,
    )
    s.patch("modules/vpc/nat.tf", "for_each = toset(aws_subnet.public[*].id)", "for_each = aws_subnet.public")
    s.a("Keyed the NAT gateways by the subnet map instead of the ids that are only known after apply.")
    cat.q(
        "error",
        'Error: Invalid for_each argument on modules/vpc/nat.tf line 12, in resource "aws_nat_gateway" '
        '"this": The "for_each" set includes values derived from resource attributes that cannot be '
        "determined until apply",
        s,
        needle="Invalid for_each argument",
    )

    s = cat.s("err-cuda-oom", cwd=ML, title="OOM at batch 64")
    s.u("Try batch size 64 with the bigger image size.")
    s.sh(
        "python -m pipeline.train --config configs/train/resnet50_finetune.yaml --batch-size 64",
        'Traceback (most recent call last):\n  File "/home/dev/src/ml-pipeline/pipeline/train.py", line '
        "143, in "
        "train_step\n    loss.backward()\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
        "2.00 GiB. GPU 0 has a total capacity of 23.68 GiB of which 1.12 GiB is free. Including non-PyTorch "
        "memory, this process has 22.55 GiB memory in use.",
        code=1,
    )
    s.a("Batch 64 doesn't fit at 384 px. Use gradient accumulation: batch 32 with 2 accumulation steps.")
    cat.q(
        "error",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total "
        "capacity of 23.68 GiB of which 904.00 MiB is free.",
        s,
        needle="CUDA out of memory",
        note="pasted from a later run: other sizes",
    )

    d = cat.s("err-cuda-device", cwd=ML, title="Tensors on two devices")
    d.u("Evaluation crashes right at the start.")
    d.sh(
        "python -m pipeline.evaluate",
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!",
        code=1,
    )
    d.a("The class weights tensor stayed on the CPU; moved it to the model's device.")

    s = cat.s("err-eresolve", cwd=APP, title="Reanimated upgrade")
    s.u("Upgrade react-native-reanimated to the latest.")
    s.sh(
        "npm install react-native-reanimated@latest",
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR!\n"
        "npm ERR! While resolving: mobile-app@1.8.0\nnpm ERR! Found: react-native@0.72.6\n"
        'npm ERR! Could not resolve dependency:\nnpm ERR! peer react-native@">=0.73" from '
        "react-native-reanimated@3.15.0",
        code=1,
    )
    s.a(
        "Reanimated 3.15 needs React Native 0.73+. We either pin reanimated to 3.6 or do the RN upgrade "
        "first."
    )
    cat.q(
        "error",
        "npm ERR! code ERESOLVE npm ERR! ERESOLVE unable to resolve dependency tree npm ERR! "
        'Found: react-native@0.72.6 npm ERR! peer react-native@">=0.73" from react-native-reanimated@3.15.0',
        s,
        needle='peer react-native@">=0.73"',
    )

    s = cat.s("err-push-rejected", cwd=SHOP, title="Push rejected")
    s.u("Push the hotfix branch.")
    s.sh(
        "git push origin hotfix/vat-rounding",
        "To github.com:dev/webshop.git\n ! [rejected]        hotfix/vat-rounding -> hotfix/vat-rounding "
        "(non-fast-forward)\nerror: failed to push some refs to 'github.com:dev/webshop.git'\nhint: Updates "
        "were rejected because the tip of your current branch is behind\nhint: its remote counterpart.",
        code=1,
    )
    s.sh(
        "git pull --rebase origin hotfix/vat-rounding && git push origin hotfix/vat-rounding",
        "Successfully rebased and updated refs/heads/hotfix/vat-rounding.",
    )
    s.a("Someone had pushed a commit to the hotfix branch; rebased on it and pushed.")
    cat.q(
        "error",
        "! [rejected] hotfix/vat-rounding -> hotfix/vat-rounding (non-fast-forward) error: failed to "
        "push some refs to 'github.com:dev/webshop.git'",
        s,
        needle="hotfix/vat-rounding (non-fast-forward)",
    )

    d = cat.s("err-push-protected", cwd=SHOP, title="Push to main")
    d.u("Push my commit to main.")
    d.sh(
        "git push origin main",
        "remote: error: GH006: Protected branch update failed for refs/heads/main.\nTo "
        "github.com:dev/webshop.git\n"
        " ! [remote rejected] main -> main (protected branch hook declined)\n"
        "error: failed to push some refs to 'github.com:dev/webshop.git'",
        code=1,
    )
    d.a("main is protected; I pushed a branch and opened a pull request instead.")

    s = cat.s("err-pg-config", cwd=SHOP, title="Image build fails on psycopg2")
    s.u("Build the production image.")
    s.sh(
        "docker build -t webshop:prod .",
        "#9 12.41   error: subprocess-exited-with-error\n#9 12.41   \u00d7 python setup.py egg_info did "
        "not run "
        "successfully.\n#9 12.41   Error: pg_config executable not found.\n#9 12.41   pg_config is "
        "required to "
        'build psycopg2 from source.\n#9 ERROR: process "/bin/sh -c pip install -r requirements.txt" did not '
        'complete successfully: exit code: 1\nERROR: failed to solve: process "/bin/sh -c pip install -r '
        'requirements.txt" did not complete successfully: exit code: 1',
        code=1,
    )
    s.a(
        "The slim base image has no libpq headers. Use psycopg2-binary or install libpq-dev in the "
        "builder stage."
    )
    cat.q(
        "error",
        'Error: pg_config executable not found. ERROR: failed to solve: process "/bin/sh -c pip install '
        '-r requirements.txt" did not complete successfully: exit code: 1',
        s,
        needle="pg_config executable not found",
    )

    d = cat.s("err-docker-npm", cwd=APP, title="Web build image")
    d.u("Build the web bundle image.")
    d.sh(
        "docker build -f Dockerfile.web .",
        '#7 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1\n'
        "npm ERR! The `npm ci` command can only install with an existing package-lock.json",
        code=1,
    )
    d.a("The lockfile was in .dockerignore; removed that line.")

    s = cat.s("err-k8s-forbidden", cwd=INFRA, title="CI cannot list pods")
    s.u("The deploy job fails at the rollout check.")
    s.sh(
        "kubectl --context ci get pods -n payments",
        'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:ci:deployer" cannot '
        'list resource "pods" in API group "" in the namespace "payments"',
        code=1,
    )
    s.write(
        "k8s/base/rbac/deployer-payments.yaml",
        "kind: RoleBinding\napiVersion: rbac.authorization.k8s.io/v1\nmetadata:\n  name: deployer\n"
        "  namespace: payments\nsubjects:\n- kind: ServiceAccount\n  name: deployer\n  namespace: ci\n"
        "roleRef:\n  kind: ClusterRole\n  name: deployer\n  apiGroup: rbac.authorization.k8s.io\n",
    )
    s.a("The deployer service account had no RoleBinding in the payments namespace; added one.")
    cat.q(
        "error",
        'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:ci:deployer" '
        'cannot list resource "pods" in API group "" in the namespace "payments"',
        s,
        needle='in the namespace "payments"',
    )

    d = cat.s("err-k8s-notfound", cwd=INFRA, title="Missing namespace")
    d.u("Deploy the search service to its namespace.")
    d.sh(
        "kubectl apply -k k8s/overlays/prod/search",
        'Error from server (NotFound): error when creating "k8s/overlays/prod/search": namespaces "search" '
        "not found",
        code=1,
    )
    d.a("Created the search namespace first; the apply went through.")

    s = cat.s("err-pytest-discount", cwd=SHOP, title="Bulk discount test")
    s.u("Run the pricing tests.")
    s.sh(
        "pytest tests/test_pricing.py -q",
        "F....\n=================================== FAILURES ===================================\n"
        "_________________________ test_bulk_discount_applies _________________________\n"
        "    def test_bulk_discount_applies():\n>       assert price_for(sku, qty=10) == Decimal('90.00')\n"
        "E       AssertionError: assert Decimal('89.10') == Decimal('90.00')\n\ntests/test_pricing.py:31: "
        "AssertionError\nFAILED tests/test_pricing.py::test_bulk_discount_applies - AssertionError: assert "
        "Decimal('89.10') == Decimal('90.00')\n1 failed, 4 passed in 0.31s",
        code=1,
    )
    s.a(
        "The 10% bulk discount is applied on top of the 1% newsletter discount; the spec says they don't "
        "stack."
    )
    cat.q(
        "error",
        "FAILED tests/test_pricing.py::test_bulk_discount_applies - AssertionError: assert "
        "Decimal('89.10') == Decimal('90.00')",
        s,
        needle="test_bulk_discount_applies",
    )

    d = cat.s("err-pytest-vat", cwd=SHOP, title="VAT rounding test")
    d.u("Run the tax tests.")
    d.sh(
        "pytest tests/test_tax.py -q",
        "FAILED tests/test_tax.py::test_vat_rounding - AssertionError: assert Decimal('19.01') == "
        "Decimal('19.00')\n1 failed, 7 passed in 0.22s",
        code=1,
    )
    d.a("Rounding happened per line instead of on the total; fixed.")

    s = cat.s("err-ansible-unreachable", cwd=INFRA, title="web-02 unreachable")
    s.u("Run the site playbook.")
    s.sh(
        "ansible-playbook -i inventory/prod site.yml",
        "TASK [Gathering Facts] *********************************************************\nok: [web-01]\n"
        'fatal: [web-02]: UNREACHABLE! => {"changed": false, "msg": "Failed to connect to the host via ssh: '
        'ssh: connect to host 10.0.4.12 port 22: Connection timed out", "unreachable": true}\n'
        "PLAY RECAP *********************************************************************\n"
        "web-01 : ok=14 changed=2 unreachable=0 failed=0\nweb-02 : ok=0 changed=0 unreachable=1 failed=0",
        code=4,
    )
    s.a("web-02 is not answering on SSH; its security group lost the bastion rule in the last apply.")
    cat.q(
        "error",
        'fatal: [web-02]: UNREACHABLE! => {"changed": false, "msg": "Failed to connect to the host via '
        'ssh: ssh: connect to host 10.0.4.12 port 22: Connection timed out", "unreachable": true}',
        s,
        needle="connect to host 10.0.4.12 port 22",
    )

    d = cat.s("err-ansible-sudo", cwd=INFRA, title="Missing sudo password")
    d.u("Run the db playbook.")
    d.sh(
        "ansible-playbook -i inventory/prod db.yml",
        'fatal: [db-01]: FAILED! => {"msg": "Missing sudo password"}',
        code=2,
    )
    d.a("Added --ask-become-pass; it ran through.")

    s = cat.s("err-hugo-tocss", cwd=BLOG, title="Hugo SCSS build")
    s.u("Build the site.")
    s.sh(
        "hugo --minify",
        'Error: error building site: TOCSS: failed to transform "scss/main.scss" (text/x-scss): this feature '
        "is not available in your current Hugo version, see https://goo.gl/YMrWcn for more information",
        code=255,
    )
    s.a("The distro hugo is not the extended edition, which SCSS needs. Installed hugo_extended 0.125.")
    cat.q(
        "error",
        'Error: error building site: TOCSS: failed to transform "scss/main.scss" (text/x-scss): this '
        "feature is not available in your current Hugo version",
        s,
        needle="TOCSS: failed to transform",
    )

    s = cat.s("err-unicode-csv", cwd=ML, title="Vendor CSV ingest")
    s.u("Ingest the new vendor price list.")
    s.sh(
        "python -m pipeline.ingest data/raw/vendor_2026_03.csv",
        'Traceback (most recent call last):\n  File "/home/dev/src/ml-pipeline/pipeline/ingest.py", line '
        "57, in "
        'load_vendor_csv\n    df = pd.read_csv(path)\n  File "pandas/_libs/parsers.pyx", line 2053, in '
        "pandas._libs.parsers.raise_parser_error\nUnicodeDecodeError: 'utf-8' codec can't decode byte "
        "0xe9 in "
        "position 1834: invalid continuation byte",
        code=1,
    )
    s.patch("pipeline/ingest.py", "df = pd.read_csv(path)", "df = pd.read_csv(path, encoding='cp1252')")
    s.a("The vendor exports Windows-1252; read it with that encoding.")
    cat.q(
        "error",
        'File "/home/dev/src/ml-pipeline/pipeline/ingest.py", line 61, in load_vendor_csv '
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 2210: invalid continuation "
        "byte",
        s,
        needle="can't decode byte 0xe9",
        note="pasted from a later run: other line and position",
    )

    d = cat.s("err-unicode-json", cwd=ML, title="Label file decode")
    d.u("Load the labels file.")
    d.sh(
        "python -m pipeline.labels",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
        code=1,
    )
    d.a("The file is UTF-16 with a BOM; converted it.")

    s = cat.s("err-nginx-dup", cwd=INFRA, title="nginx reload fails")
    s.u("Reload nginx on web-01 after the static change.")
    s.sh(
        "ssh web-01 sudo nginx -t",
        'nginx: [emerg] duplicate location "/static/" in /etc/nginx/sites-enabled/webshop:38\n'
        "nginx: configuration file /etc/nginx/nginx.conf test failed",
        code=1,
    )
    s.a("The template now emits /static/ twice; removed the old block.")
    cat.q(
        "error",
        'nginx: [emerg] duplicate location "/static/" in /etc/nginx/sites-enabled/webshop:38',
        s,
        needle='duplicate location "/static/"',
    )

    s = cat.s("err-segfault", cwd=ML, title="Dataloader workers die")
    s.u("Training dies in the first epoch with many workers.")
    s.sh(
        "python -m pipeline.train --workers 8",
        "RuntimeError: DataLoader worker (pid 48213) is killed by signal: Bus error. It is possible that "
        "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
        code=1,
    )
    s.a("The container's /dev/shm is 64 MB; run it with --shm-size=8g.")
    cat.q(
        "error",
        "RuntimeError: DataLoader worker (pid 51877) is killed by signal: Bus error. It is possible "
        "that dataloader's workers are out of shared memory.",
        s,
        needle="killed by signal: Bus error",
        note="pasted from a later run: another pid",
    )


# -- path ------------------------------------------------------------------------------------------------
def kind_path(cat: Catalog) -> None:
    s = cat.s("path-stripe-webhook", cwd=SHOP, title="Webhook signature check")
    s.u("Stripe webhooks sometimes fail signature verification.")
    s.read(
        "shop/payments/stripe_webhook.py",
        "def stripe_webhook(request):\n    payload = request.body.decode()\n"
        "    event = stripe.Webhook.construct_event(payload, sig, secret)",
    )
    s.patch(
        "shop/payments/stripe_webhook.py", "    payload = request.body.decode()", "    payload = request.body"
    )
    s.a(
        "The payload was decoded before verification, which changes the bytes for non-ASCII names; the "
        "signature must be checked on the raw body."
    )
    cat.q("path", "shop/payments/stripe_webhook.py", s, needle="stripe_webhook.py")

    d = cat.s("path-paypal-webhook", cwd=SHOP, title="PayPal webhook retries")
    d.u("PayPal retries webhooks we already processed.")
    d.patch(
        "shop/payments/paypal_webhook.py",
        "    process(event)",
        "    if Event.objects.filter(ext_id=event['id']).exists():\n        return HttpResponse(status=200)\n"
        "    process(event)",
    )
    d.a("Webhook handling is idempotent now, keyed by PayPal's event id.")

    s = cat.s("path-rds-params", cwd=INFRA, title="RDS parameter group")
    s.u("Create a parameter group for the shop's RDS with log_min_duration_statement at 500 ms.")
    s.write(
        "terraform/modules/rds/parameter_group.tf",
        'resource "aws_db_parameter_group" "shop" {\n  family = "postgres16"\n  parameter {\n'
        '    name  = "log_min_duration_statement"\n    value = "500"\n  }\n}\n',
    )
    s.a("Added the parameter group and referenced it from the instance.")
    cat.q(
        "path", "/home/dev/src/infra/terraform/modules/rds/parameter_group.tf", s, needle="parameter_group.tf"
    )

    d = cat.s("path-rds-main", cwd=INFRA, title="RDS storage autoscaling")
    d.u("Enable storage autoscaling on the RDS instance.")
    d.patch(
        "terraform/modules/rds/main.tf",
        "  allocated_storage = 100",
        "  allocated_storage     = 100\n  max_allocated_storage = 500",
    )
    d.a("Storage now grows automatically up to 500 GB.")

    s = cat.s("path-resnet-yaml", cwd=ML, title="Fine-tune config")
    s.u("Make a config to fine-tune resnet50 on the product photos.")
    s.write(
        "configs/train/resnet50_finetune.yaml",
        "model: resnet50\npretrained: imagenet\nfreeze_until: layer3\nlr: 3.0e-4\nepochs: 30\nimage_size: "
        "384\n",
    )
    s.a("The config freezes up to layer3 and trains the rest at lr 3e-4.")
    cat.q(
        "path",
        "configs/train/resnet50_finetune.yaml",
        s,
        note="the OOM session (an error target) ran with this config but did not edit it",
    )

    d = cat.s("path-resnet18", cwd=ML, title="Small baseline config")
    d.u("A quick baseline with resnet18.")
    d.write(
        "configs/train/resnet18_baseline.yaml",
        "model: resnet18\npretrained: imagenet\nlr: 1.0e-3\nepochs: 10\n",
    )
    d.a("Baseline config written.")

    s = cat.s("path-linking", cwd=APP, title="Deep link routes")
    s.u("Add the order detail screen to the deep link config.")
    s.patch(
        "src/navigation/LinkingConfiguration.ts",
        "      Orders: 'orders',",
        "      Orders: 'orders',\n      OrderDetail: 'orders/:id',",
    )
    s.a("shop://orders/123 now opens the order detail screen.")
    cat.q("path", "LinkingConfiguration.ts", s, needle="LinkingConfiguration.ts")

    s = cat.s("path-head-partial", cwd=BLOG, title="Open Graph tags")
    s.u("Add Open Graph tags so links preview nicely.")
    s.patch(
        "layouts/partials/head.html",
        "<title>{{ .Title }}</title>",
        '<title>{{ .Title }}</title>\n<meta property="og:title" content="{{ .Title }}">\n'
        '<meta property="og:description" content="{{ .Summary | plainify }}">',
    )
    s.a("Added og:title and og:description to the head partial.")
    cat.q("path", "layouts/partials/head.html", s, needle="partials/head.html")

    d = cat.s("path-footer-partial", cwd=BLOG, title="Footer year")
    d.u("The footer still says 2025.")
    d.patch("layouts/partials/footer.html", "&copy; 2025", "&copy; {{ now.Year }}")
    d.a("The footer year is computed at build time now.")

    s = cat.s("path-lsp-lua", cwd=DOT, title="pyright settings")
    s.u("pyright in neovim complains about every import in the monorepo.")
    s.patch(
        "nvim/lua/plugins/lsp.lua",
        "lspconfig.pyright.setup({})",
        "lspconfig.pyright.setup({ settings = { python = { analysis = { extraPaths = { 'src' } } } } })",
    )
    s.a("Added src to pyright's extraPaths.")
    cat.q("path", "~/dotfiles/nvim/lua/plugins/lsp.lua", s, needle="plugins/lsp.lua")

    d = cat.s("path-treesitter", cwd=DOT, title="Treesitter parsers")
    d.u("Install the treesitter parsers for go and terraform.")
    d.patch(
        "nvim/lua/plugins/treesitter.lua",
        'ensure_installed = { "lua", "python" }',
        'ensure_installed = { "lua", "python", "go", "terraform" }',
    )
    d.a("Added both parsers.")

    s = cat.s("path-site-j2", cwd=INFRA, title="HTTP/2 and HSTS")
    s.u("Enable HTTP/2 and HSTS on the shop vhost.")
    s.patch(
        "ansible/roles/nginx/templates/webshop.conf.j2",
        "    listen 443 ssl;",
        '    listen 443 ssl;\n    http2 on;\n    add_header Strict-Transport-Security "max-age=31536000" '
        "always;",
    )
    s.a("HTTP/2 and HSTS are on in the webshop vhost template.")
    cat.q("path", "ansible/roles/nginx/templates/webshop.conf.j2", s, needle="webshop.conf.j2")

    s = cat.s("path-deploy-yml", cwd=SHOP, title="Deploy on tags")
    s.u("Only deploy to production from version tags.")
    s.patch(
        ".github/workflows/deploy.yml", "on:\n  push:\n    branches: [main]", "on:\n  push:\n    tags: ['v*']"
    )
    s.a("The deploy workflow now runs on v* tags only.")
    cat.q("path", ".github/workflows/deploy.yml", s, needle="workflows/deploy.yml")

    s = cat.s("path-migration-0042", cwd=SHOP, title="Refund reason field")
    s.u("Add a refund reason to orders, with a migration.")
    s.write(
        "shop/migrations/0042_order_refund_reason.py",
        "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n"
        "    dependencies = [('shop', '0041_order_status_index')]\n    operations = [\n"
        "        migrations.AddField('order', 'refund_reason', models.CharField(max_length=200, "
        "blank=True)),\n"
        "    ]\n",
    )
    s.a("Added the field and its migration.")
    cat.q("path", "0042_order_refund_reason.py", s, needle="0042_order_refund_reason")

    s1 = cat.s("path-seasonality-1", cwd=ML, title="Weekly seasonality features", day=40)
    s1.u("Add weekly seasonality features to the demand model.")
    s1.write(
        "pipeline/features/seasonality.py",
        "import numpy as np\n\n\ndef weekly(df):\n    dow = df.index.dayofweek\n"
        "    return np.sin(2 * np.pi * dow / 7), np.cos(2 * np.pi * dow / 7)\n",
    )
    s1.a("Added sine/cosine day-of-week features.")
    s2 = cat.s("path-seasonality-2", cwd=ML, title="Holiday features", day=95)
    s2.u("Add public holidays to the seasonality features.")
    s2.patch(
        "pipeline/features/seasonality.py",
        "def weekly(df):",
        "def holidays(df, country='DE'):\n    return df.index.isin(holiday_dates(country))\n\n\ndef "
        "weekly(df):",
    )
    s2.a("Added a holiday flag next to the weekly features.")
    cat.q("path", "pipeline/features/seasonality.py", [s1, s2], needle="features/seasonality.py")

    s = cat.s("path-kustomize-prod", cwd=INFRA, title="Prod image tag")
    s.u("Bump the checkout image in prod to 2.14.0.")
    s.patch("k8s/overlays/prod/kustomization.yaml", "  newTag: 2.13.2", "  newTag: 2.14.0")
    s.a("Prod overlay points at 2.14.0.")
    cat.q("path", "k8s/overlays/prod/kustomization.yaml", s, needle="overlays/prod/kustomization.yaml")

    d = cat.s("path-kustomize-staging", cwd=INFRA, title="Staging image tag")
    d.u("Bump the checkout image in staging to 2.14.0-rc1.")
    d.patch("k8s/overlays/staging/kustomization.yaml", "  newTag: 2.13.2", "  newTag: 2.14.0-rc1")
    d.a("Staging overlay points at the release candidate.")

    s = cat.s("path-app-gradle", cwd=APP, title="minSdk 24")
    s.u("Raise the Android minSdk to 24, the camera library needs it.")
    s.patch("android/app/build.gradle", "        minSdkVersion 21", "        minSdkVersion 24")
    s.a("minSdk is 24 now.")
    cat.q("path", "android/app/build.gradle", s, needle="android/app/build.gradle")

    d = cat.s("path-root-gradle", cwd=APP, title="Kotlin version")
    d.u("Bump Kotlin in the root gradle file.")
    d.patch("android/build.gradle", "        kotlinVersion = '1.8.0'", "        kotlinVersion = '1.9.24'")
    d.a("Kotlin 1.9.24.")

    s = cat.s("path-compose-override", cwd=SHOP, title="Local mail catcher")
    s.u("Add mailpit for local development only.")
    s.write(
        "docker-compose.override.yml",
        "services:\n  mailpit:\n    image: axllent/mailpit\n    ports: ['8025:8025']\n",
    )
    s.a("mailpit runs locally through the override file; production compose is untouched.")
    cat.q("path", "docker-compose.override.yml", s, needle="docker-compose.override.yml")

    s = cat.s("path-taxes-md", cwd=NOTES, title="Tax notes")
    s.u("Add the home-office allowance to my tax notes.")
    s.patch(
        "2026/taxes.md",
        "## Deductions\n",
        "## Deductions\n- home office allowance: 6 EUR/day, max 1260 EUR\n",
    )
    s.a("Added the home-office allowance under deductions.")
    cat.q("path", "/home/dev/notes/2026/taxes.md", s, needle="2026/taxes.md")

    s = cat.s("path-settings-prod", cwd=SHOP, title="Secure cookies")
    s.u("Set secure cookie flags in production settings.")
    s.patch(
        "shop/settings/production.py",
        "SESSION_COOKIE_SECURE = False",
        "SESSION_COOKIE_SECURE = True\nCSRF_COOKIE_SECURE = True",
    )
    s.a("Both cookies are secure-only in production.")
    cat.q("path", "shop/settings/production.py", s, needle="settings/production.py")

    d = cat.s("path-settings-dev", cwd=SHOP, title="Debug toolbar")
    d.u("Enable the debug toolbar in development settings.")
    d.patch("shop/settings/development.py", "INSTALLED_APPS += []", "INSTALLED_APPS += ['debug_toolbar']")
    d.a("Toolbar enabled for development.")


# -- tool output -----------------------------------------------------------------------------------------
def kind_tool_output(cat: Catalog) -> None:
    s = cat.s("to-crashloop", cwd=INFRA, title="Checkout errors")
    s.u("Checkout is erroring for some customers, look at the cluster.")
    s.sh(
        "kubectl get pods -n shop",
        "NAME                             READY   STATUS             RESTARTS   AGE\n"
        "checkout-api-7f9c6d5b8-x2lqp     0/1     CrashLoopBackOff   14         52m\n"
        "checkout-api-7f9c6d5b8-9dkq1     1/1     Running            0          52m\n"
        "catalog-api-5c8d7b9f4-lp2mz      1/1     Running            0          3d",
    )
    s.sh("kubectl logs -n shop checkout-api-7f9c6d5b8-x2lqp --previous | tail -2", "Killed\nexit status 137")
    s.a(
        "One replica keeps getting killed for memory, so a share of requests hits a restarting pod. I'll "
        "raise its memory limit to 512Mi."
    )
    cat.q("tool_output", "checkout-api CrashLoopBackOff", s, needle="CrashLoopBackOff")

    d = cat.s("to-pods-healthy", cwd=INFRA, title="Cluster check")
    d.u("Is everything up in the shop namespace?")
    d.sh(
        "kubectl get pods -n shop",
        "NAME                             READY   STATUS    RESTARTS   AGE\n"
        "checkout-api-6b7d8c9f5-q8wrt     1/1     Running   0          2d\n"
        "catalog-api-5c8d7b9f4-lp2mz      1/1     Running   0          2d",
    )
    d.a("All pods are ready, nothing restarting.")

    s = cat.s("to-torch-version", cwd=ML, title="Which torch")
    s.u("Which torch build is in the training venv?")
    s.sh(
        "pip show torch | head -3",
        "Name: torch\nVersion: 2.4.1+cu121\nSummary: Tensors and Dynamic neural networks",
    )
    s.a("That's the CUDA 12.1 build, which matches the driver.")
    cat.q("tool_output", "torch 2.4.1+cu121", s, needle="2.4.1+cu121")

    d = cat.s("to-torch-old", cwd=ML, title="torch on the laptop")
    d.u("And on the laptop?")
    d.sh("pip show torch | head -2", "Name: torch\nVersion: 2.3.0")
    d.a("The laptop has an older CPU-only build.")

    s = cat.s("to-git-revert", cwd=INFRA, title="What changed on the edge")
    s.u("What changed in the edge config this week?")
    s.sh(
        "git log --oneline -5 -- edge/",
        'a91f3c2 Revert "Enable HTTP/3 on the edge"\n4be07d1 Enable HTTP/3 on the edge\n'
        "77c1e0a Raise upstream keepalive\n0d3b9aa Add brotli for text/css",
    )
    s.a("Four commits; one feature was added and backed out again two days later.")
    cat.q("tool_output", "revert Enable HTTP/3 on the edge", s, needle="Enable HTTP/3")

    s = cat.s("to-df-docker", cwd=INFRA, title="Disk alert on build host")
    s.u("The build host sent a disk alert.")
    s.sh(
        "ssh build-01 df -h",
        "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p2  100G   41G   54G  44% /\n"
        "/dev/nvme1n1    500G  481G   19G  97% /var/lib/docker",
    )
    s.sh("ssh build-01 docker system prune -af --filter until=168h", "Total reclaimed space: 312.4GB")
    s.a("Pruned images older than a week; reclaimed a lot of space.")
    cat.q("tool_output", "/var/lib/docker 97%", s, needle="/var/lib/docker")

    s = cat.s("to-dig", cwd=INFRA, title="DNS after migration")
    s.u("Did the API record switch over?")
    s.sh("dig +short api.shop.example.com", "203.0.113.47")
    s.a("It resolves to the new load balancer now.")
    cat.q("tool_output", "203.0.113.47", s, needle="203.0.113.47")

    s = cat.s("to-feature-flag", cwd=SHOP, title="Env template review")
    s.u("Check the env template has everything the checkout needs.")
    s.read(
        ".env.example",
        "DATABASE_URL=postgres://shop@localhost/shop\nSTRIPE_API_VERSION=2024-06-20\n"
        "FEATURE_ONE_CLICK_CHECKOUT=false\nSHIPPING_API_URL=https://labels.example.net/v2",
    )
    s.a("The template covers the database, Stripe and shipping; nothing is missing for checkout.")
    cat.q("tool_output", "FEATURE_ONE_CLICK_CHECKOUT", s, needle="FEATURE_ONE_CLICK_CHECKOUT")

    s = cat.s("to-redis-image", cwd=SHOP, title="Running containers")
    s.u("What's running locally right now?")
    s.sh(
        "docker ps --format '{{.Names}}\t{{.Image}}\t{{.Status}}'",
        "webshop-web-1\twebshop:dev\tUp 2 hours\nwebshop-redis-1\tredis:7.2.4-alpine\tUp 3 weeks\n"
        "webshop-db-1\tpostgres:16.2\tUp 3 weeks",
    )
    s.a("The web container and its two backing services.")
    cat.q("tool_output", "redis:7.2.4-alpine", s, needle="redis:7.2.4-alpine")

    s = cat.s("to-nvidia-driver", cwd=ML, title="GPU check")
    s.u("Is the GPU visible after the reboot?")
    s.sh(
        "nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv",
        "name, driver_version, memory.total [MiB]\nNVIDIA RTX A5000, 550.54.14, 24564 MiB",
    )
    s.a("Yes, the card is visible with all its memory.")
    cat.q("tool_output", "RTX A5000 550.54.14", s, needle="550.54.14")

    s = cat.s("to-cert-enddate", cwd=INFRA, title="Cert expiry check")
    s.u("When does the wildcard certificate expire?")
    s.sh("openssl x509 -in certs/wildcard.pem -noout -enddate", "notAfter=Mar 14 23:59:59 2027 GMT")
    s.a("Not for a long while; no action needed this year.")
    cat.q("tool_output", "wildcard certificate notAfter Mar 14 2027", s, needle="Mar 14 23:59:59 2027")

    s = cat.s("to-hugo-web", cwd=BLOG, title="Hugo upgrade warnings")
    s.u("Hugo prints a deprecation warning since the upgrade; look up what it means.")
    s.web(
        "hugo deprecation warning site social",
        [
            (
                "Hugo v0.124.0 release notes",
                "https://github.com/gohugoio/hugo/releases/tag/v0.124.0",
                ".Site.Social was deprecated in v0.124.0 and will be removed; use .Site.Params.social "
                "instead.",
            ),
            (
                "Configure Hugo",
                "https://gohugo.io/getting-started/configuration/",
                "Configuration settings reference.",
            ),
        ],
    )
    s.patch("config/_default/params.toml", "[social]", "[params.social]")
    s.a("Moved the setting under params as the release notes say.")
    cat.q("tool_output", "Hugo 0.124 release notes deprecated social", s, needle="v0.124.0")

    s = cat.s("to-rn-version", cwd=APP, title="RN version check")
    s.u("Which React Native are we actually on?")
    s.sh(
        "npm ls react-native --depth=0", "mobile-app@1.9.0 /home/dev/src/mobile-app\n`-- react-native@0.74.3"
    )
    s.a("We're on the version after the upgrade.")
    cat.q("tool_output", "react-native@0.74.3", s, needle="react-native@0.74.3")

    s = cat.s("to-inventory", cwd=INFRA, title="Replica hosts")
    s.u("Which host runs the third database replica?")
    s.read(
        "ansible/inventory/prod/hosts.ini",
        "[db]\ndb-01 ansible_host=10.0.7.21\n"
        "db-replica-02 ansible_host=10.0.7.22\ndb-replica-03 ansible_host=10.0.7.23",
    )
    s.a("It's listed in the prod inventory under [db].")
    cat.q("tool_output", "db-replica-03 10.0.7.23", s, needle="10.0.7.23")

    s = cat.s("to-stuck-payment", cwd=SHOP, title="Order status counts")
    s.u("How many orders are in each status?")
    s.sh(
        "psql shop -c 'select status, count(*) from shop_order group by 1 order by 2 desc'",
        "    status     | count\n---------------+--------\n delivered     | 184211\n shipped       |   2210\n"
        " stuck_payment |   1287\n cancelled     |    904\n(4 rows)",
    )
    s.a("Most are delivered; a few categories are worth a look.")
    cat.q("tool_output", "stuck_payment orders", s, needle="stuck_payment")

    s = cat.s("to-restic", source="cron", job="b7e21f04c9aa", title="Nightly backup check")
    s.u("[cron] Check last night's backups and report anything unusual.")
    s.sh(
        "restic -r sftp:nas-01:/backups snapshots --latest 3",
        "ID        Time                 Host    Tags  Paths\n"
        "4f8e2a1c  2026-03-02 02:00:11  nas-01        /srv/photos\n"
        "9a0b7d3e  2026-03-02 02:14:52  nas-01        /srv/documents\n"
        "c1d2e3f4  2026-03-02 02:31:07  nas-01        /home",
    )
    s.a("Backups ran on schedule; three snapshots, nothing unusual.")
    cat.q("tool_output", "restic 4f8e2a1c /srv/photos", s, needle="4f8e2a1c")

    s = cat.s("to-grep-todo", cwd=SHOP, title="Leftover TODOs")
    s.u("Find leftover TODOs in the payments code.")
    s.grep(
        "TODO",
        [
            ("shop/payments/refunds.py", 41, "# TODO(klarna): partial captures are not reversible"),
            ("shop/payments/stripe_client.py", 12, "# TODO: drop api_version pin after upgrade"),
        ],
        where="shop/payments",
    )
    s.a("Two TODOs, both minor.")
    cat.q("tool_output", "klarna partial captures not reversible", s, needle="partial captures")


# -- CJK -------------------------------------------------------------------------------------------------
def kind_cjk(cat: Catalog) -> None:
    s = tg(cat, "cjk-backup-script", title="数据库备份脚本")
    s.u("帮我写一个数据库备份脚本，每天凌晨三点自动运行，保留最近七天的备份。")
    s.a(
        "可以用 cron 加一个 shell 脚本：每天 03:00 用 pg_dump 导出，文件名带日期，然后用 find 删除七天前"
        "的备份文件。"
    )
    cat.q("cjk", "数据库备份脚本", s, needle="数据库备份脚本")

    d = tg(cat, "cjk-db-migration", title="数据库迁移")
    d.u("数据库迁移的时候怎么避免锁表？")
    d.a("大表加字段时先加可空列，再分批回填数据，最后再加约束，这样不会长时间锁表。")

    s = tg(cat, "cjk-hangzhou", title="杭州周末")
    s.u("周末想去杭州西湖玩两天，有什么旅游攻略？")
    s.a(
        "第一天环湖：断桥、白堤、苏堤，傍晚去雷峰塔看日落；第二天去灵隐寺和龙井村喝茶。西湖边人多，建议早"
        "上出发。"
    )
    cat.q("cjk", "杭州 西湖 旅游攻略", s)

    d = tg(cat, "cjk-shanghai", title="上海一日游")
    d.u("上海一日游怎么安排？")
    d.a("上午外滩和南京路，下午豫园，晚上去陆家嘴看夜景。")

    s = tg(cat, "cjk-hongshaorou", title="红烧肉")
    s.u("红烧肉的做法是什么？我想做得不那么油腻。")
    s.a(
        "五花肉先焯水，再小火煸出油，倒掉多余的油；炒糖色后加生抽、老抽、料酒和八角，小火炖一个小时，最后"
        "大火收汁。"
    )
    cat.q("cjk", "红烧肉 做法", s, needle="红烧肉")

    d = tg(cat, "cjk-tangcu", title="糖醋排骨")
    d.u("糖醋排骨的做法？")
    d.a("排骨焯水后炸至金黄，再用糖、醋、生抽调汁翻炒收汁。")

    s = cat.s("cjk-redis-cache", cwd=SHOP, title="商品列表缓存")
    s.u("给 Django 项目加上 Redis 缓存，商品列表页太慢了。")
    s.patch("shop/views.py", "def product_list(request):", "@cache_page(60 * 5)\ndef product_list(request):")
    s.a("已经给商品列表页加了五分钟的页面缓存，后端用 Redis。商品更新时需要清除对应的缓存。")
    cat.q("cjk", "商品列表页 缓存", s)
    cat.q("cjk", "Django Redis 缓存", s, note="mixed scripts; Redis and Django are common elsewhere")

    s = cat.s("cjk-cuda-driver", cwd=ML, title="驱动更新后 CUDA 不可用")
    s.u("显卡驱动更新以后 CUDA 不能用了，torch.cuda.is_available() 返回 False。")
    s.sh(
        "nvidia-smi", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", code=9
    )
    s.a("内核模块没有重新编译。重启后如果还不行，用 dkms 重新安装驱动，然后再检查 nvidia-smi。")
    cat.q("cjk", "显卡驱动更新 CUDA 不能用", s)

    s = tg(cat, "cjk-leave-email", title="请假邮件")
    s.u("帮我写一封请假邮件给经理，下周三和周四请两天年假。")
    s.a("王经理您好：\n我想申请下周三、周四两天年假，手头的工作已经安排好，紧急事项可以联系小李。谢谢！")
    cat.q("cjk", "请假邮件", s, needle="请假邮件")
    cat.q("cjk", "年假", s, needle="年假", note="two characters: below a trigram")

    s = tg(cat, "cjk-vocab-plan", title="英语学习计划")
    s.u("帮我做一个学习计划，每天背单词，一天 50 个英语单词，三个月准备考试。")
    s.a("每天早上背 50 个新单词，晚上复习前一天和一周前的单词；每周日做一次测试，按艾宾浩斯曲线复习。")
    cat.q("cjk", "背单词 学习计划", s)

    d = tg(cat, "cjk-speaking", title="英语口语")
    d.u("怎么提高英语口语？")
    d.a("每天跟读二十分钟，找语伴练习，录音听自己的发音。")

    s = cat.s("cjk-giscus", cwd=BLOG, title="评论系统")
    s.u("把博客的评论系统从 Disqus 换成 giscus。")
    s.write(
        "layouts/partials/comments.html",
        '<script src="https://giscus.app/client.js" data-repo="dev/blog" data-mapping="pathname" '
        "async></script>\n",
    )
    s.a("已经换成 giscus，评论保存在 GitHub Discussions 里，没有广告。")
    cat.q("cjk", "评论系统 换成 giscus", s)

    s = tg(cat, "cjk-kyoto-momiji", title="京都の紅葉")
    s.u("京都の紅葉の見頃はいつですか？おすすめの場所も教えてください。")
    s.a(
        "例年11月中旬から12月上旬が見頃です。東福寺、永観堂、嵐山がおすすめですが、朝早く行くと混雑を避け"
        "られます。"
    )
    cat.q("cjk", "京都 紅葉 見頃", s)

    d = tg(cat, "cjk-tokyo-sakura", title="東京の桜")
    d.u("東京の桜の見頃は？")
    d.a("3月下旬から4月上旬です。目黒川や新宿御苑が人気です。")

    s = cat.s("cjk-venv", cwd=ML, title="仮想環境")
    s.u("Pythonの仮想環境の作り方を教えてください。")
    s.sh("python3 -m venv .venv && . .venv/bin/activate && python -V", "Python 3.12.3")
    s.a(
        "`python3 -m venv .venv` で作成し、`source .venv/bin/activate` で有効にします。終わったら "
        "`deactivate` です。"
    )
    cat.q("cjk", "仮想環境の作り方", s, needle="仮想環境の作り方")

    s = tg(cat, "cjk-tenshutsu", title="引っ越しの手続き")
    s.u("引っ越しの手続きのリストを作ってください。大阪から東京へ引っ越します。")
    s.a(
        "1. 転出届（大阪の区役所）\n2. 転入届（東京、14日以内）\n3. 電気・ガス・水道の手続き\n4. 郵便の転"
        "送届\n5. 運転免許の住所変更"
    )
    cat.q("cjk", "転出届", s, needle="転出届")

    d = tg(cat, "cjk-moving-quote", title="引っ越し業者")
    d.u("引っ越し業者の見積もりを比べるコツは？")
    d.a("三社以上から訪問見積もりを取り、段ボールの数と保険の内容を確認しましょう。")

    s = tg(cat, "cjk-tonkotsu", title="豚骨ラーメン")
    s.u("家で豚骨ラーメンのスープの作り方を教えてください。")
    s.a(
        "豚の骨を一晩水にさらし、一度下茹でしてから強火で10時間以上煮込みます。白濁したら塩ダレと合わせます。"
    )
    cat.q("cjk", "豚骨 スープ 作り方", s)

    d = tg(cat, "cjk-takoyaki", title="たこ焼き")
    d.u("たこ焼きの生地の作り方は？")
    d.a("小麦粉100gに卵1個、だし400mlを混ぜます。")

    s = cat.s("cjk-imagepull", cwd=INFRA, title="デプロイ失敗")
    s.u("Kubernetes のデプロイが失敗します。原因を調べてください。")
    s.sh(
        "kubectl get pods -n search",
        "NAME                      READY   STATUS             RESTARTS   AGE\n"
        "indexer-6d9f8b7c5-2xkqp   0/1     ImagePullBackOff   0          6m",
    )
    s.a("イメージのプルに失敗しています。レジストリの認証情報（imagePullSecrets）が名前空間にありません。")
    cat.q("cjk", "イメージのプル 失敗", s)
    cat.q("cjk", "Kubernetes デプロイ 失敗", s, note="mixed scripts")

    s = tg(cat, "cjk-keigo", title="敬語メール")
    s.u("取引先に送る敬語のメールの書き方を教えてください。納期の延期をお願いしたいです。")
    s.a(
        "件名：納品日変更のお願い\n平素より大変お世話になっております。誠に恐れ入りますが、納期を一週間延"
        "期していただけますでしょうか。"
    )
    cat.q("cjk", "敬語 メール 納期 延期", s)


# -- updated facts ---------------------------------------------------------------------------------------
def kind_updated(cat: Catalog) -> None:
    def pair(key: str, old: list[tuple[str, str]], new: list[tuple[str, str]], query: str, **kw: Any) -> None:
        o = cat.s(f"{key}-old", day=20 + len(cat.queries) % 30, **kw)
        for u, a in old:
            o.u(u).a(a)
        n = cat.s(f"{key}-new", day=120 + len(cat.queries) % 40, **kw)
        for u, a in new:
            n.u(u).a(a)
        cat.q("updated_fact", query, n, older=[o])

    pair(
        "upd-staging-port",
        [
            (
                "What port does the staging database listen on? I need it for my local tunnel.",
                "The staging database listens on port 5433 on staging-db-1; tunnel with "
                "`ssh -L 5433:localhost:5433 staging-db-1`.",
            )
        ],
        [
            (
                "Connections to the staging database are refused on the old port.",
                "The staging database moved behind pgbouncer last week: the port is now 6432. Update the "
                "tunnel "
                "and DATABASE_URL; the old port is closed.",
            )
        ],
        "staging database port",
        cwd=SHOP,
    )
    pair(
        "upd-deploy-day",
        [
            (
                "Which day do we deploy the shop to production?",
                "Production deploys happen on Tuesdays after the 10:00 standup, never on Fridays.",
            )
        ],
        [
            (
                "Reminder for the team wiki: the production deploy day.",
                "From this month production deploys move to Thursdays, since Tuesday is now the sales "
                "meeting.",
            )
        ],
        "production deploy day",
        cwd=SHOP,
    )
    pair(
        "upd-nas-ip",
        [
            (
                "What's the NAS IP address again?",
                "The NAS has the fixed IP address 192.168.1.20 in the router's DHCP table.",
            )
        ],
        [
            (
                "I changed the router. Write down the NAS IP address.",
                "With the new router the NAS gets the reserved IP address 192.168.178.40.",
            )
        ],
        "NAS IP address",
        source="telegram",
        chat=CHAT,
    )
    pair(
        "upd-ml-python",
        [
            (
                "Which Python version does the ml-pipeline use?",
                "The ml-pipeline is pinned to Python 3.10 in .python-version because of the old onnx wheels.",
            )
        ],
        [
            (
                "Upgrade the ml-pipeline Python version.",
                "Done: the ml-pipeline now uses Python 3.12; .python-version and the CI matrix are updated.",
            )
        ],
        "ml-pipeline python version",
        cwd=ML,
    )
    pair(
        "upd-dentist",
        [
            (
                "Put my dentist appointment in the notes: May 12 at 10:00.",
                "Noted: dentist appointment May 12 at 10:00.",
            )
        ],
        [
            (
                "The dentist called, the appointment is moved.",
                "Updated: dentist appointment is now May 19 at 14:30.",
            )
        ],
        "dentist appointment",
        source="telegram",
        chat=CHAT,
    )
    pair(
        "upd-node-version",
        [
            (
                "Which Node version does the mobile app build with?",
                "The mobile app uses Node 18, pinned in .nvmrc.",
            )
        ],
        [("Bump Node for the mobile app.", "The mobile app's Node version is now 20: .nvmrc says 20.15.1.")],
        "mobile app node version",
        cwd=APP,
    )
    blog = [("Where is the blog hosted?", "The blog is hosted on Netlify, deployed from the main branch.")]
    o = cat.s("upd-blog-host-1", cwd=BLOG, day=8)
    o.u(blog[0][0]).a(blog[0][1])
    m = cat.s("upd-blog-host-2", cwd=BLOG, day=70)
    m.u("Move the blog hosting off Netlify.").a(
        "The blog is now hosted on Cloudflare Pages; the Netlify site is deleted."
    )
    n = cat.s("upd-blog-host-3", cwd=BLOG, day=150)
    n.u("Cloudflare Pages build minutes ran out. Move the blog hosting again.").a(
        "The blog is now hosted on GitHub Pages, built by the pages workflow on every push to main."
    )
    cat.q("updated_fact", "blog hosted", n, note="three sessions; the last one wins", older=[o, m])
    pair(
        "upd-free-shipping",
        [("What is the free shipping threshold?", "Free shipping applies to orders over 50 EUR.")],
        [
            (
                "Marketing changed the free shipping threshold.",
                "The free shipping threshold is now 60 EUR; the banner and the cart logic are updated.",
            )
        ],
        "free shipping threshold",
        cwd=SHOP,
    )
    pair(
        "upd-oncall",
        [("Who is on call for payments this quarter?", "Alex is on call for payments this quarter.")],
        [("Payments on-call changed.", "Priya took over the payments on call from Alex as of today.")],
        "payments on call",
        cwd=SHOP,
    )
    pair(
        "upd-retention",
        [("What's our backup retention?", "Backup retention is 7 daily and 4 weekly snapshots.")],
        [
            (
                "Change the backup retention after the audit.",
                "Backup retention is now 14 daily, 8 weekly and 12 monthly snapshots.",
            )
        ],
        "backup retention",
        cwd=INFRA,
    )
    pair(
        "upd-best-ckpt",
        [("What's the best checkpoint so far?", "The best checkpoint is epoch 12 with val_acc 0.873.")],
        [
            (
                "The long run finished. Best checkpoint?",
                "New best checkpoint: epoch 31, val_acc 0.901; it replaces the epoch 12 one.",
            )
        ],
        "best checkpoint val_acc",
        cwd=ML,
    )
    pair(
        "upd-gym",
        [("Save my gym schedule.", "Gym schedule: Monday, Wednesday and Friday at 7am.")],
        [
            (
                "New job hours, new gym schedule.",
                "Gym schedule updated: Tuesday, Thursday and Saturday at 6pm.",
            )
        ],
        "gym schedule",
        source="telegram",
        chat=CHAT,
    )
    pair(
        "upd-staging-api",
        [
            (
                "What's the staging API base URL for the mobile app?",
                "The staging API base URL is https://staging-api.shop.example.com.",
            )
        ],
        [
            (
                "The staging API base URL for the mobile app changed with the new cluster.",
                "Use https://api.staging.shop.example.com as the staging API base URL from now on.",
            )
        ],
        "staging API base URL mobile app",
        cwd=APP,
    )
    pair(
        "upd-grafana",
        [("Where is Grafana?", "Grafana runs on monitor-01 port 3000, log in with the admin account.")],
        [
            (
                "Where is Grafana now, did it move?",
                "Yes: Grafana now lives at grafana.internal.example.com behind SSO; monitor-01 "
                "is being decommissioned.",
            )
        ],
        "where is grafana",
        cwd=INFRA,
    )


# -- work profile ----------------------------------------------------------------------------------------
def kind_profile(cat: Catalog) -> None:
    def w(key: str, **kw: Any) -> Sess:
        return cat.s(key, profile="work", **kw)

    s = w("wk-gotenberg", cwd=BILL, title="Invoice PDFs")
    s.u("Invoice PDF rendering with wkhtmltopdf breaks on the new fonts. Alternatives?")
    s.a(
        "Run gotenberg as a sidecar: it renders HTML to PDF with headless Chromium, handles web fonts, and "
        "the billing service just POSTs the invoice HTML to it."
    )
    cat.q("profile", "invoice pdf gotenberg", s)

    s = w("wk-airflow-sla", cwd=DATA, title="Revenue rollup SLA")
    s.u("Give the daily_revenue_rollup DAG 3 retries and an SLA of 06:00.")
    s.patch(
        "dags/daily_revenue_rollup.py",
        "default_args = {'owner': 'data'}",
        "default_args = {'owner': 'data', 'retries': 3, 'sla': timedelta(hours=6)}",
    )
    s.a("The DAG retries 3 times and misses are reported when it's not done by 06:00.")
    cat.q("profile", "daily_revenue_rollup DAG SLA", s, needle="daily_revenue_rollup")

    s = w("wk-snowflake", cwd=DATA, title="Warehouse costs")
    s.u("Snowflake credits are high. Check the warehouse settings.")
    s.sh(
        "snowsql -q \"show warehouses like 'TRANSFORM_WH'\"",
        "| name         | size   | auto_suspend | auto_resume |\n| TRANSFORM_WH | MEDIUM | 600          | "
        "true        |",
    )
    s.a("TRANSFORM_WH only auto-suspends after 10 minutes; set auto-suspend to 60 seconds.")
    cat.q("profile", "TRANSFORM_WH auto-suspend", s, needle="TRANSFORM_WH")

    s = w("wk-nil-proration", cwd=BILL, title="Proration panic")
    s.u("The billing service panics on plan downgrades.")
    s.sh(
        "go test ./internal/proration/...",
        "--- FAIL: TestDowngradeMidCycle (0.00s)\npanic: runtime error: invalid memory address or nil "
        "pointer "
        "dereference [recovered]\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6f2b1c]\n\n"
        "goroutine 7 [running]:\nbilling-svc/internal/proration.Calc(0x0, ...)\n"
        "\t/home/dev/work/billing-svc/internal/proration/calc.go:88 +0x3c",
        code=1,
    )
    s.patch(
        "internal/proration/calc.go",
        "\tdays := sub.Period.Days()",
        "\tif sub.Period == nil {\n\t\treturn Zero, ErrNoPeriod\n\t}\n\tdays := sub.Period.Days()",
    )
    s.a("Downgraded subscriptions in trial have no period; handled that case.")
    cat.q("profile", "nil pointer dereference proration calc.go:88", s, needle="proration/calc.go")

    s = w("wk-jwks", cwd=AUTH, title="Signing key rotation")
    s.u("How should the auth gateway rotate its JWT signing key?")
    s.a(
        "Publish both keys in the JWKS endpoint during rotation: add the new key, start signing with it "
        "after "
        "a day, and drop the old one once the longest token lifetime has passed. Rotate every 90 days."
    )
    cat.q("profile", "JWKS signing key rotation", s)

    s = w("wk-dbt-incremental", cwd=DATA, title="Subscriptions model")
    s.u("fct_subscriptions takes 40 minutes to rebuild. Make it incremental.")
    s.patch(
        "models/marts/fct_subscriptions.sql",
        "{{ config(materialized='table') }}",
        "{{ config(materialized='incremental', unique_key='subscription_id') }}",
    )
    s.a("Incremental on subscription_id with a filter on updated_at; it builds in two minutes.")
    cat.q("profile", "fct_subscriptions incremental", s, needle="fct_subscriptions")

    s = w("wk-bill-2231", cwd=BILL, title="Dunning emails")
    s.u("Start on BILL-2231: dunning emails should stop once the card is updated.")
    s.a(
        "For BILL-2231 the dunning job will check the payment method's updated_at before each reminder and "
        "cancel the sequence if it's newer than the failed charge."
    )
    cat.q("profile", "BILL-2231", s, needle="BILL-2231")

    s = w("wk-vpn", title="Office VPN split tunnel")
    s.u("Set up the office VPN so only internal traffic goes through it.")
    s.a(
        "Use a split tunnel: route only 10.40.0.0/16 and the internal DNS zone through the VPN, everything "
        "else goes out directly."
    )
    cat.q("profile", "VPN split tunnel 10.40.0.0/16", s)

    s = w("wk-okr", title="Q3 OKRs")
    s.u("Draft our team's quarterly OKRs.")
    s.a(
        "Objective: a faster checkout. KR1: p99 checkout latency under 300 ms. KR2: payment error rate below "
        "0.2%. KR3: zero sev-1 incidents in billing."
    )
    cat.q("profile", "OKRs p99 checkout latency", s)

    s = w("wk-kafka-retention", title="Kafka retention review")
    s.u("Summarize the architecture review with the platform team about Kafka.")
    s.a(
        "Agreed: topic retention goes from 3 to 7 days for the billing events topics, compaction stays on "
        "for the customer topics, and consumers must handle replays idempotently."
    )
    cat.q("profile", "kafka topic retention days", s)

    s = w("wk-dbt-cron", source="cron", job="5d2c9e8a7b61", title="dbt nightly report")
    s.u("[cron] Run the nightly dbt build and summarize failures.")
    s.sh(
        "dbt build --target prod --quiet",
        "Failure in model stg_payments (models/staging/stg_payments.sql)\n  Database Error: column "
        '"captured_at" does not exist\nDone. PASS=212 WARN=3 ERROR=1 SKIP=4 TOTAL=220',
        code=1,
    )
    s.a("One model failed because a source column was renamed upstream; four models downstream were skipped.")
    cat.q("profile", "stg_payments captured_at does not exist", s, needle="stg_payments")

    s = w("wk-x-net", cwd=BILL, title="Dependency CVE")
    s.u("Dependabot flagged a CVE in golang.org/x/net.")
    s.sh(
        "go get golang.org/x/net@v0.33.0 && go mod tidy && go test ./...",
        "ok  \tbilling-svc/internal/... 3.1s",
    )
    s.a("Upgraded golang.org/x/net to v0.33.0, which fixes the CVE; tests pass.")
    cat.q("profile", "golang.org/x/net CVE", s, needle="golang.org/x/net")

    s = w("wk-helm-replicas", cwd=BILL, title="Scale billing in prod")
    s.u("Scale billing-svc to 4 replicas in prod.")
    s.patch("deploy/helm/values-prod.yaml", "replicaCount: 2", "replicaCount: 4")
    s.a("billing-svc runs 4 replicas in prod after the next deploy.")
    cat.q("profile", "billing-svc helm replicaCount prod", s)

    s = w("wk-onboarding", title="New hire onboarding")
    s.u("Make an onboarding checklist for the new backend hire.")
    s.a(
        "Day 1: laptop, Okta account and the groups eng-backend and billing-readonly, GitHub team. "
        "Week 1: on-call shadowing, the billing architecture walkthrough, first small PR."
    )
    cat.q("profile", "new hire onboarding okta groups", s)


# -- background: ordinary sessions that share the vocabulary --------------------------------------------
_ROUTINE = {
    SHOP: [
        (
            "Run the tests.",
            "pytest -q",
            "........................................ [100%]\n212 passed in 41.30s",
            "All 212 tests pass.",
        ),
        (
            "What's uncommitted?",
            "git status --short",
            " M shop/views.py\n M shop/templates/cart.html\n?? notes.txt",
            "Two modified files and an untracked notes file.",
        ),
        ("Lint the code.", "ruff check shop", "All checks passed!", "Ruff is clean."),
        (
            "Show the last commits.",
            "git log --oneline -3",
            "e4c1a2b Cart: show VAT per line\n19ab3f0 Bump Django to 5.0.6\n7d2e9c4 Fix typo in checkout "
            "email",
            "The last three commits are small fixes and a Django bump.",
        ),
        (
            "Check the migrations are in sync.",
            "python manage.py makemigrations --check --dry-run",
            "No changes detected",
            "Models and migrations match.",
        ),
    ],
    INFRA: [
        (
            "Plan the staging changes.",
            "terraform plan -var-file=staging.tfvars",
            "No changes. Your infrastructure matches the configuration.",
            "Staging has no drift.",
        ),
        (
            "Are all nodes ready?",
            "kubectl get nodes",
            "NAME      STATUS   ROLES    AGE   VERSION\nnode-1    Ready    <none>   41d   v1.29.4\n"
            "node-2    Ready    <none>   41d   v1.29.4",
            "Both nodes are Ready.",
        ),
        ("Lint the playbooks.", "ansible-lint", "Passed: 0 failure(s), 0 warning(s) on 38 files.", "Clean."),
        ("Validate the terraform.", "terraform validate", "Success! The configuration is valid.", "Valid."),
    ],
    ML: [
        ("Run the unit tests.", "pytest -q tests", "57 passed in 12.02s", "All green."),
        (
            "How big is the data directory?",
            "du -sh data/*",
            "12G\tdata/raw\n3.1G\tdata/processed",
            "Raw data dominates.",
        ),
        (
            "Evaluate the latest checkpoint.",
            "python -m pipeline.evaluate --ckpt latest",
            "top1=0.884 top5=0.978 loss=0.412",
            "Top-1 is 0.884.",
        ),
    ],
    APP: [
        ("Run the jest tests.", "npx jest --silent", "Tests:       96 passed, 96 total", "All tests pass."),
        ("Lint the app.", "npx eslint src --max-warnings=0", "", "ESLint is clean."),
        (
            "Start the iOS build.",
            "npx react-native run-ios --simulator 'iPhone 15'",
            "success Successfully launched the app",
            "The app runs in the simulator.",
        ),
    ],
    BLOG: [
        (
            "Build the site.",
            "hugo --minify",
            "Pages | 142\nStatic files | 37\nTotal in 612 ms",
            "Built in 0.6 s.",
        ),
        (
            "Check links.",
            "lychee public/",
            "\u2705 1312 Total \u2705 1312 OK \U0001f6ab 0 Errors",
            "No broken links.",
        ),
    ],
    DOT: [
        ("Sync the dotfiles.", "git pull && ./install.sh", "Already up to date.\nlinked 14 files", "Done."),
        ("Update the neovim plugins.", "nvim --headless '+Lazy! sync' +qa", "", "Plugins are updated."),
    ],
}

_CHATS = [
    ("Convert 180 C to Fahrenheit.", "356 F."),
    ("What's a good name for a grey cat?", "Ash, Pepper, Smokey or Earl Grey."),
    ("Remind me what rhymes with orange.", "Nothing rhymes perfectly; 'door hinge' is the usual joke."),
    (
        "Summarize the plot of Dune in two sentences.",
        "A noble heir is betrayed on a desert planet and survives "
        "among its people. He becomes their messiah and leads a war against the empire.",
    ),
    (
        "How long should I boil an egg for a soft yolk?",
        "Six and a half minutes from boiling water, then ice water.",
    ),
    ("Translate 'see you tomorrow' into Italian.", "A domani!"),
    (
        "Suggest a 20 minute workout without equipment.",
        "Four rounds: 20 squats, 10 push-ups, 15 lunges each side, 30 s plank, 1 min rest.",
    ),
    ("What's the capital of Australia?", "Canberra."),
    (
        "Is it worth repairing a 9 year old washing machine?",
        "Only if the repair is under a third of a new one's price and the drum bearings are fine.",
    ),
    (
        "Give me a packing list for a weekend city trip.",
        "Two shirts, one warm layer, comfortable shoes, charger, toiletries, ID and a tote bag.",
    ),
    ("Recommend a podcast about history.", "'The Rest Is History' or 'Fall of Civilizations'."),
    (
        "What's the difference between baking soda and baking powder?",
        "Baking powder already contains the acid; baking soda needs an acidic ingredient.",
    ),
]

_CRON_JOBS = [
    (
        "a1c3e5f7b9d2",
        "Morning briefing",
        "[cron] Morning briefing: weather and calendar.",
        "curl -s 'wttr.in/Berlin?format=3'",
        "Berlin: \u26c5 +7\u00b0C",
        "Cloudy, 7 degrees; two meetings today.",
    ),
    (
        "c4d6e8f0a2b3",
        "Disk usage report",
        "[cron] Report disk usage on the home server.",
        "df -h / /srv",
        "/dev/sda2  220G  121G  88G  58% /\n/dev/sdb1  3.6T  2.2T  1.3T  63% /srv",
        "Disks are at 58% and 63%.",
    ),
    (
        "e7f9a1b3c5d4",
        "Dependency updates",
        "[cron] Check the webshop for outdated dependencies.",
        "pip list --outdated --format=columns | head -4",
        "Package  Version Latest\ncelery   5.3.6   5.4.0\nstripe   9.6.0   10.1.0",
        "Two outdated packages, no security advisories.",
    ),
]


_TASKS = {
    SHOP: (
        [
            "Add a 'sort by price' option to the product list.",
            "Show the VAT amount per line in the cart.",
            "Include the delivery estimate in the order confirmation email.",
            "Paginate the admin order list.",
            "Add a unit test for coupon expiry.",
            "Move the cart total computation into a service.",
            "Log slow SQL queries in development.",
            "Add a health check endpoint for the load balancer.",
        ],
        [
            "shop/views.py",
            "shop/models.py",
            "shop/cart/services.py",
            "shop/templates/cart.html",
            "shop/emails.py",
            "shop/admin.py",
            "tests/test_cart.py",
            "shop/urls.py",
        ],
    ),
    INFRA: (
        [
            "Add an alarm for 5xx responses on the load balancer.",
            "Tag all EC2 instances with the cost center.",
            "Move the bastion to a smaller instance type.",
            "Add a readiness probe to the catalog deployment.",
            "Template the logrotate config for the app servers.",
            "Restrict SSH to the office IP range.",
        ],
        [
            "terraform/alarms.tf",
            "terraform/ec2.tf",
            "k8s/base/catalog/deployment.yaml",
            "ansible/roles/common/templates/logrotate.j2",
            "terraform/bastion.tf",
            "terraform/security_groups.tf",
        ],
    ),
    ML: (
        [
            "Add a confusion matrix to the evaluation report.",
            "Cache the preprocessed tensors on disk.",
            "Log the learning rate to TensorBoard.",
            "Add a cosine learning rate schedule.",
            "Evaluate per product category.",
            "Make the random seed configurable.",
        ],
        [
            "pipeline/evaluate.py",
            "pipeline/data.py",
            "pipeline/schedulers.py",
            "pipeline/report.py",
            "configs/train/base.yaml",
            "pipeline/utils.py",
        ],
    ),
    APP: (
        [
            "Add pull-to-refresh on the orders screen.",
            "Show the cart count as a badge on the tab bar.",
            "Cache product images.",
            "Add haptic feedback on add-to-cart.",
            "Stop the keyboard from covering the address form.",
        ],
        [
            "src/screens/Orders.tsx",
            "src/navigation/Tabs.tsx",
            "src/components/ProductImage.tsx",
            "src/screens/Address.tsx",
            "src/hooks/useCart.ts",
        ],
    ),
    BLOG: (
        [
            "Show the reading time on posts.",
            "Generate the sitemap with lastmod dates.",
            "Add pages for tags.",
            "Draft a post about moving the webshop to Django 5.",
        ],
        [
            "layouts/_default/single.html",
            "config/_default/hugo.toml",
            "layouts/taxonomy/tag.html",
            "content/posts/webshop-django-5.md",
        ],
    ),
    DOT: (
        [
            "Add a git alias for switching to the previous branch.",
            "Make tmux use vi keys.",
            "Add fzf key bindings to zsh.",
        ],
        ["git/gitconfig", "tmux/tmux.conf", "zsh/zshrc"],
    ),
}
_LINES = [
    "    return result",
    "    items = list(queryset)",
    "    if not items:",
    "    total = sum(x.amount for x in items)",
    "    logger.info('done')",
    "    cfg = load_config()",
    "    timeout = 30",
    "    enabled = True",
]
_REPLIES = [
    "Done, and the existing tests still pass.",
    "Implemented; I checked it by hand as well.",
    "That's in place now. It only touches one module.",
    "Finished. Nothing else needed to change.",
    "Done. I left a short comment explaining the choice.",
    "Changed as asked and verified it locally.",
]


def long_session(cat: Catalog, rng: random.Random, key: str, cwd: str, **kw: Any) -> Sess:
    """A longer working session: several tasks, each a read, a patch, a command and a reply."""
    tasks, files = _TASKS[cwd]
    picked = rng.sample(tasks, k=min(len(tasks), rng.randint(3, 6)))
    s = cat.s(key, cwd=cwd, title=picked[0].rstrip("."), **kw)
    for task in picked:
        path = rng.choice(files)
        lines = rng.sample(_LINES, 4)
        s.u(task)
        s.read(path, "\n".join(lines), note="Let me look at the current code first.")
        s.patch(path, lines[1], lines[1] + "  # " + task.rstrip(".").lower())
        _, command, output, _ = rng.choice(_ROUTINE[cwd])
        s.sh(command, output)
        s.a(rng.choice(_REPLIES))
    return s


def background(cat: Catalog, rng: random.Random) -> None:
    """Ordinary sessions: routine commands in every project, small talk, cron runs and sub-agents."""
    n = 0
    for _ in range(3):
        for cwd, routines in _ROUTINE.items():
            picks = rng.sample(routines, k=min(len(routines), rng.randint(1, 3)))
            n += 1
            s = cat.s(f"bg-{n}", cwd=cwd, title=picks[0][0].rstrip(".?"))
            for prompt, command, output, reply in picks:
                s.u(prompt).sh(command, output).a(reply)
    for i in range(16):
        cwd = list(_TASKS)[i % len(_TASKS)]
        long_session(cat, rng, f"bg-long-{i}", cwd)
    for i, (prompt, reply) in enumerate(_CHATS * 2):
        s = tg(cat, f"bg-chat-{i}")
        s.u(prompt).a(reply)
    for job, title, prompt, command, output, reply in _CRON_JOBS:
        for week in range(0, 24, 3):
            s = cat.s(
                f"bg-cron-{job}-{week}", source="cron", job=job, title=title, day=week * 7 + rng.randrange(7)
            )
            s.u(prompt).sh(command, output).a(reply)
    parents = [
        s for s in cat.sessions if s.source == "cli" and s.profile is None and s.cwd in (SHOP, INFRA, ML)
    ]
    for i, parent in enumerate(rng.sample(parents, 12)):
        s = cat.s(f"bg-sub-{i}", source="subagent", parent=parent)
        s.u("Survey the code for uses of deprecated APIs and list them with file and line.")
        s.grep(
            "warnings.warn|DeprecationWarning",
            [("src/compat.py", 14, "warnings.warn('use new_api', DeprecationWarning)")],
        )
        s.a("One deprecated call in src/compat.py; nothing else uses deprecated APIs.")


def background_work(cat: Catalog, rng: random.Random) -> None:
    routines = [
        (
            BILL,
            "Run the Go tests.",
            "go test ./...",
            "ok  \tbilling-svc/internal/invoice\t0.412s\nok  \tbilling-svc/internal/proration\t0.108s",
            "All packages pass.",
        ),
        (BILL, "Vet the code.", "go vet ./...", "", "go vet is clean."),
        (
            BILL,
            "What's in the last release?",
            "git log --oneline v1.41.0..HEAD",
            "3b1d9e0 Retry webhook delivery\n8ac2f71 Invoice footer text",
            "Two commits since v1.41.0.",
        ),
        (
            DATA,
            "Run the dbt tests for marts.",
            "dbt test --select marts",
            "Done. PASS=88 WARN=0 ERROR=0",
            "All mart tests pass.",
        ),
        (
            DATA,
            "List the DAGs.",
            "airflow dags list | head -4",
            "dag_id | fileloc\nhourly_events_load | dags/hourly_events_load.py\nweekly_churn_report | "
            "dags/weekly_churn_report.py",
            "The hourly and weekly DAGs are registered.",
        ),
        (AUTH, "Run the auth gateway tests.", "npm test --silent", "Tests: 143 passed, 143 total", "Green."),
        (
            AUTH,
            "Check the token lifetime config.",
            "grep -n ttl config/default.yaml",
            "12:  access_token_ttl: 15m\n13:  refresh_token_ttl: 30d",
            "Access tokens live 15 minutes.",
        ),
    ]
    for i in range(26):
        cwd, prompt, command, output, reply = routines[i % len(routines)]
        s = cat.s(f"wbg-{i}", profile="work", cwd=cwd, title=prompt.rstrip(".?"))
        s.u(prompt).sh(command, output).a(reply)
    notes = [
        ("Summarize the billing standup.", "Invoices are on track; the tax service migration slips a week."),
        (
            "Draft a reply declining the Friday meeting.",
            "Thanks for the invite; I can't make Friday, could we move it to Monday?",
        ),
        ("Which Kafka consumer group does billing use?", "billing-events-v2."),
        ("What's our JWT access token lifetime?", "15 minutes, with 30 day refresh tokens."),
    ]
    for i, (prompt, reply) in enumerate(notes):
        cat.s(f"wbg-note-{i}", profile="work").u(prompt).a(reply)


def near_misses(cat: Catalog) -> None:
    """Root sessions that share words with the work profile's facts (for search across every profile)."""
    s = cat.s("nm-invoice-template", cwd=NOTES, title="Freelance invoice")
    s.u("Make a PDF invoice template for my freelance work.")
    s.a("A simple HTML invoice rendered to PDF with weasyprint: header, line items, VAT and bank details.")
    s = cat.s("nm-kafka-vs-redis", cwd=SHOP, title="Queue choice")
    s.u("Should the webshop use Kafka or Redis streams for order events?")
    s.a(
        "Redis streams are enough at this volume; Kafka's retention and replay matter only with many "
        "consumers."
    )
    s = cat.s("nm-jwt-app", cwd=APP, title="Token refresh in the app")
    s.u("The app logs users out when the JWT expires.")
    s.a("Refresh the access token with the refresh token on 401 and retry the request once.")
    s = cat.s("nm-helm-infra", cwd=INFRA, title="Helm chart for search")
    s.u("Write a Helm chart for the search indexer.")
    s.a("A chart with a Deployment, a Service and values for replicaCount and resources.")
    s = cat.s("nm-okr-personal", cwd=NOTES, title="Personal goals")
    s.u("Help me set personal goals for the year.")
    s.a("Run a half marathon, read 20 books, and ship the webshop's mobile app.")
    s = cat.s("nm-vpn-home", cwd=INFRA, title="Home VPN")
    s.u("Route all traffic through the home VPN when on hotel wifi.")
    s.a("Set AllowedIPs = 0.0.0.0/0 on the laptop's WireGuard peer for a full tunnel.")


def build() -> Catalog:
    cat = Catalog()
    for make in (
        kind_keyword,
        kind_paraphrase,
        kind_error,
        kind_path,
        kind_tool_output,
        kind_cjk,
        kind_updated,
        kind_profile,
    ):
        make(cat)
    near_misses(cat)
    background(cat, random.Random(11))
    background_work(cat, random.Random(13))
    cat.finalize(seed=7)
    return cat
