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
    # the larger recall set: added after the original sessions, which keep their ids
    cat.extra_from = len(cat.sessions)
    old_summaries(cat)
    for more in (
        more_keyword,
        more_paraphrase,
        more_error,
        more_path,
        more_tool_output,
        more_cross_lingual,
        more_updates,
        more_profile,
    ):
        more(cat)
    bot_background(cat, random.Random(17))
    notes(cat)
    cat.finalize(seed=7)
    return cat


# ruff: noqa: E501  (the tables below hold conversations and summaries as single-line strings)
# == the larger recall set: summaries of the targets, more targets, a third profile, memory and skills ====
# The queries of the larger set are written by someone who reads only ``summaries.jsonl``: one note per
# target (its kind_hint says which kind of query it supports best). The sessions below are added after the
# original ones (``Catalog.extra_from``), so the original sessions keep their ids and queries.jsonl holds.

# Summaries of the original targets: key -> (kind_hint, language, summary).
_OLD_SUMMARIES: dict[str, tuple[str, str, str]] = {
    "kw-celery-beat": (
        "keyword",
        "en",
        "Duplicate abandoned-cart emails in the webshop were traced to two celery beat containers left over from a scale-up. The fix pinned the beat service back to a single replica in docker-compose.yml.",
    ),
    "kw-brotli": (
        "keyword",
        "en",
        "Asked whether nginx can hand out the .br files the build already produces. Answer: yes via the ngx_brotli module's brotli_static directive; it was added to the Ansible static.conf.j2 template next to gzip_static.",
    ),
    "kw-bf16": (
        "keyword",
        "en",
        "Mixed-precision training went NaN after a couple thousand steps with fp16 and a GradScaler. Switching autocast to bfloat16 and dropping the scaler in pipeline/train.py fixed it.",
    ),
    "kw-universal-links": (
        "keyword",
        "en",
        "iOS universal links were opening Safari rather than the shop app. A curl showed the apple-app-site-association file served with an octet-stream content type instead of JSON.",
    ),
    "kw-hugo-figure": (
        "keyword",
        "en",
        "Wrote a Hugo figure shortcode for the blog taking src, alt and caption, with native lazy loading on the image.",
    ),
    "kw-telescope": (
        "keyword",
        "en",
        "Telescope's file finder in neovim was listing node_modules; added file_ignore_patterns for node_modules and .git to the telescope plugin config in the dotfiles.",
    ),
    "kw-tf-lock": (
        "keyword",
        "en",
        "A cancelled CI apply left the Terraform state locked in DynamoDB. The lock was released with terraform force-unlock after making sure no runner was still applying.",
    ),
    "kw-stripe-refund": (
        "keyword",
        "en",
        "An admin double click refunded a customer twice. The Stripe refund call in the webshop's refunds module now passes an idempotency key built from the order and the request.",
    ),
    "kw-sourdough": (
        "keyword",
        "en",
        "Advice on a sluggish sourdough starter that smelled of acetone: feed it twice daily at equal parts, i.e. 100% hydration, or keep it stiffer at 60-65% in a warm kitchen.",
    ),
    "kw-passport": (
        "keyword",
        "en",
        "Checklist for the passport renewal appointment at the Bürgeramt, read from the notes: old passport, a biometric photo and a 70 EUR fee payable by card.",
    ),
    "kw-dvc-b2": (
        "keyword",
        "en",
        "Datasets moved off the full laptop disk: a DVC remote was configured on Backblaze B2 through its S3-compatible endpoint, with the key kept in the local DVC config.",
    ),
    "kw-wireguard-mtu": (
        "keyword",
        "en",
        "WireGuard on the phone over LTE completed the handshake but pages hung. Diagnosed as an MTU issue; the tunnel MTU on the client should be lowered to 1380.",
    ),
    "kw-vacuum": (
        "keyword",
        "en",
        "The order_items table had grown to about 41 GB for 9 million rows because of bloat. Recommended pg_repack over VACUUM FULL and a lower autovacuum scale factor for that table.",
    ),
    "kw-themed-icon": (
        "keyword",
        "en",
        "On Android 13 with themed icons the app icon showed as a blank circle. A monochrome layer was added to the adaptive icon XML for the launcher.",
    ),
    "kw-zsh-startup": (
        "keyword",
        "en",
        "Profiled a two-second zsh startup with zprof: nvm's auto-loading took about 1.4 s. The fix is to lazy-load nvm behind wrapper functions.",
    ),
    "pp-buildx-cache": (
        "paraphrase",
        "en",
        "The Docker image build in GitHub Actions took nine minutes on every push. Moving to build-push-action with the gha cache brought it down to roughly 80 seconds.",
    ),
    "pp-certbot": (
        "paraphrase",
        "en",
        "The shop's Let's Encrypt certificate lapsed because the new host had no renewal timer. A certbot systemd timer with an nginx reload hook was set up.",
    ),
    "pp-worker-rss": (
        "paraphrase",
        "en",
        "A celery worker's memory crept up to 4 GB a day until the OOM killer hit it. Cause: the invoice PDF task kept pages in a module-level list; fix plus recycling children after 200 tasks.",
    ),
    "pp-de-locale": (
        "paraphrase",
        "en",
        "Ahead of the Austrian launch, a German translation file for the app's onboarding screens (de.json) was added and registered with i18next.",
    ),
    "pp-pgdump": (
        "paraphrase",
        "en",
        "Wrote a shell script for the Ansible postgres role that streams a pg_dump of the shop to an S3 bucket every night at 02:30.",
    ),
    "pp-flaky-tz": (
        "paraphrase",
        "en",
        "test_checkout_total failed on CI about once a week. It only breaks between midnight and 1 am UTC because the test uses Berlin dates and the code UTC; freezing time fixes it.",
    ),
    "pp-lambda": (
        "paraphrase",
        "en",
        "The image-resize Lambda took six seconds after idling. That is a cold start caused by a bloated package; trim it to Pillow and keep one provisioned instance warm during shop hours.",
    ),
    "pp-dolomites": (
        "paraphrase",
        "en",
        "Packing advice for a September week of hut-to-hut hiking in the Dolomites: layered clothing, a sleeping-bag liner the huts require, a headlamp and cash for the rifugi.",
    ),
    "pp-overfit": (
        "paraphrase",
        "en",
        "Validation loss climbed after epoch 8 while training loss kept dropping. Suggested dropout before the head, heavier augmentation and early stopping with patience 3.",
    ),
    "pp-backoff": (
        "paraphrase",
        "en",
        "The shipping-label API answered 429 in the evening rush. The client call was wrapped in a retry helper with exponential backoff and jitter that respects Retry-After.",
    ),
    "pp-breakfast": (
        "paraphrase",
        "en",
        "A quick washoku breakfast idea: rice, miso soup with tofu and wakame, grilled salmon, tamagoyaki and pickles, all in about 20 minutes.",
    ),
    "pp-dark-mode": (
        "paraphrase",
        "en",
        "The blog got a dark colour scheme that kicks in from the reader's system setting, via a prefers-color-scheme media query in main.css.",
    ),
    "pp-s2idle": (
        "paraphrase",
        "en",
        "The laptop lost about 30% battery overnight with the lid shut. It was using s2idle; the fix is deep sleep as the default and no USB wake.",
    ),
    "pp-main-branch": (
        "paraphrase",
        "en",
        "Renamed master to main across the repositories and updated the CI push triggers; the GitHub default branch still had to be switched by hand.",
    ),
    "pp-sticky-header": (
        "paraphrase",
        "en",
        "Made the blog's top navigation stay visible on long posts using position: sticky on the header, no JavaScript.",
    ),
    "err-django-conn": (
        "error",
        "en",
        "The Django test run failed with an OperationalError because nothing listened on port 5432. The Postgres container was down; after starting it the 212 tests passed.",
    ),
    "err-markupsafe": (
        "error",
        "en",
        "mkdocs build for the blog docs crashed with an ImportError about soft_unicode from markupsafe. An old Jinja2 with a new MarkupSafe; upgrading Jinja2 to 3.1 fixed it.",
    ),
    "err-ts2345": (
        "error",
        "en",
        "tsc reported TS2345 in the app's Checkout screen: a possibly undefined coupon param passed as a string. Defaulting it with ?? '' fixed the single error.",
    ),
    "err-tf-foreach": (
        "error",
        "en",
        "terraform plan for the new VPC module failed with an Invalid for_each argument in the NAT gateway resource. The gateways are now keyed by the subnet map.",
    ),
    "err-cuda-oom": (
        "error",
        "en",
        "Training resnet50 at batch 64 with the larger image size hit torch.OutOfMemoryError on the GPU. Suggested batch 32 with two gradient accumulation steps.",
    ),
    "err-eresolve": (
        "error",
        "en",
        "Upgrading react-native-reanimated failed with npm ERESOLVE: the latest version needs React Native 0.73 or newer while the app was on 0.72.6.",
    ),
    "err-push-rejected": (
        "error",
        "en",
        "Pushing the VAT rounding hotfix branch was rejected as non-fast-forward because someone else had pushed; a rebase then push solved it.",
    ),
    "err-pg-config": (
        "error",
        "en",
        "The production Docker build died while pip built psycopg2: pg_config was missing in the slim image. Use psycopg2-binary or install libpq-dev in the builder.",
    ),
    "err-k8s-forbidden": (
        "error",
        "en",
        "The deploy job's rollout check got a Forbidden error listing pods in the payments namespace. A RoleBinding for the CI deployer service account was added.",
    ),
    "err-pytest-discount": (
        "error",
        "en",
        "A pricing test failed with an AssertionError on Decimal amounts because the bulk discount stacked with the newsletter discount, which the spec forbids.",
    ),
    "err-ansible-unreachable": (
        "error",
        "en",
        "The site playbook reported web-02 UNREACHABLE over SSH with a connection timeout. Its security group had lost the bastion rule in a previous apply.",
    ),
    "err-hugo-tocss": (
        "error",
        "en",
        "Hugo failed with a TOCSS error transforming the SCSS because the installed binary was not the extended edition; hugo_extended 0.125 was installed.",
    ),
    "err-unicode-csv": (
        "error",
        "en",
        "Ingesting a vendor price list raised UnicodeDecodeError in load_vendor_csv. The file was Windows-1252, so read_csv now uses cp1252.",
    ),
    "err-nginx-dup": (
        "error",
        "en",
        "nginx -t on web-01 failed with a duplicate location error for /static/ after a template change; the old block was removed.",
    ),
    "err-segfault": (
        "error",
        "en",
        "DataLoader workers died with a Bus error in the first epoch because the container's shared memory was only 64 MB; run with a larger --shm-size.",
    ),
    "path-stripe-webhook": (
        "path",
        "en",
        "Stripe webhook signature checks failed sometimes because the payload was decoded before verification. The webhook view in the payments package now verifies the raw body.",
    ),
    "path-rds-params": (
        "path",
        "en",
        "Created a Terraform RDS parameter group module for the shop's Postgres 16 that logs statements slower than 500 ms.",
    ),
    "path-resnet-yaml": (
        "path",
        "en",
        "Wrote a training config to fine-tune resnet50 on product photos: frozen up to layer3, lr 3e-4, 30 epochs, 384 px images.",
    ),
    "path-linking": (
        "path",
        "en",
        "Added the order detail screen to the React Native deep-link configuration so shop://orders/<id> opens it.",
    ),
    "path-head-partial": (
        "path",
        "en",
        "Added Open Graph title and description tags to the blog's head partial for link previews.",
    ),
    "path-lsp-lua": (
        "path",
        "en",
        "pyright in neovim flagged every monorepo import; src was added to its extraPaths in the LSP plugin config of the dotfiles.",
    ),
    "path-site-j2": (
        "path",
        "en",
        "Turned on HTTP/2 and HSTS in the Ansible nginx template of the webshop vhost.",
    ),
    "path-deploy-yml": (
        "path",
        "en",
        "The webshop's GitHub deploy workflow was changed to run only on version tags instead of pushes to main.",
    ),
    "path-migration-0042": (
        "path",
        "en",
        "Added a refund reason field to orders with Django migration number 0042.",
    ),
    "path-seasonality-1": (
        "path",
        "en",
        "Created a features module with sine and cosine day-of-week seasonality for the demand model.",
    ),
    "path-seasonality-2": (
        "path",
        "en",
        "Extended the demand model's seasonality features with a public-holiday flag (Germany by default).",
    ),
    "path-kustomize-prod": (
        "path",
        "en",
        "Bumped the checkout image tag in the production kustomize overlay from 2.13.2 to 2.14.0.",
    ),
    "path-app-gradle": (
        "path",
        "en",
        "Raised the Android minSdkVersion of the app from 21 to 24 because the camera library requires it.",
    ),
    "path-compose-override": (
        "path",
        "en",
        "Added mailpit for local development only, in a compose override file of the webshop.",
    ),
    "path-taxes-md": (
        "path",
        "en",
        "Added the home-office allowance (6 EUR per day, capped at 1260 EUR) to the deductions section of this year's tax notes.",
    ),
    "path-settings-prod": (
        "path",
        "en",
        "Made session and CSRF cookies secure-only in the Django production settings.",
    ),
    "to-crashloop": (
        "tool_output",
        "en",
        "Checkout errors for some customers: kubectl showed one checkout-api pod restarting in a crash loop and its previous log ended with exit status 137. The pod status names came only from the tool output.",
    ),
    "to-torch-version": (
        "tool_output",
        "en",
        "Checked which torch build the training venv has; pip show reported the exact version string with its CUDA suffix, which only appears in the tool output.",
    ),
    "to-git-revert": (
        "tool_output",
        "en",
        "Looked at this week's edge config history. The git log output showed an HTTP/3 change that was added and then reverted; the commit messages are only in the output.",
    ),
    "to-df-docker": (
        "tool_output",
        "en",
        "Disk alert on the build host: df showed the Docker data partition at 97% (only in the output), and a docker system prune reclaimed about 312 GB.",
    ),
    "to-dig": (
        "tool_output",
        "en",
        "Checked whether the API DNS record switched over; dig returned the new load balancer address, which is only in the tool output.",
    ),
    "to-feature-flag": (
        "tool_output",
        "en",
        "Reviewed the webshop's .env.example for checkout settings. The file showed a one-click checkout feature flag set to false; the flag name appears only in the file read.",
    ),
    "to-redis-image": (
        "tool_output",
        "en",
        "Listed the local containers: docker ps showed the web container plus Redis and Postgres with their exact image tags, which are only in the output.",
    ),
    "to-nvidia-driver": (
        "tool_output",
        "en",
        "After a reboot, nvidia-smi's CSV output gave the GPU model and driver version; those values were never repeated in the conversation.",
    ),
    "to-cert-enddate": (
        "tool_output",
        "en",
        "Checked the wildcard certificate's expiry with openssl; the notAfter date (in 2027) appears only in the command output.",
    ),
    "to-hugo-web": (
        "tool_output",
        "en",
        "Looked up a Hugo deprecation warning on the web; the search result said the site social setting was deprecated in 0.124, and the config was moved under params.",
    ),
    "to-rn-version": (
        "tool_output",
        "en",
        "Asked which React Native version the app is on; npm ls printed the exact version, which only the tool output states.",
    ),
    "to-inventory": (
        "tool_output",
        "en",
        "Looked up which host runs the third database replica by reading the prod Ansible inventory; its name and IP are only in the file contents.",
    ),
    "to-stuck-payment": (
        "tool_output",
        "en",
        "Counted webshop orders per status in psql. The output listed a stuck payment status with 1287 orders; that status was never named in the chat.",
    ),
    "to-restic": (
        "tool_output",
        "en",
        "A cron check of last night's restic backups on the NAS; the snapshot ids and backed-up paths (photos, documents, home) come only from the snapshots listing.",
    ),
    "to-grep-todo": (
        "tool_output",
        "en",
        "Searched the payments code for TODOs. One found in the refunds module concerns Klarna partial captures; its wording is only in the search results.",
    ),
    "cjk-backup-script": (
        "cross_lingual",
        "zh",
        "In Chinese: the user asked for a database backup script that runs every night at 3 am and keeps seven days; the answer was cron plus pg_dump with dated files and a find cleanup.",
    ),
    "cjk-hangzhou": (
        "cross_lingual",
        "zh",
        "In Chinese: a two-day weekend itinerary for West Lake in Hangzhou — the causeways and Leifeng Pagoda at sunset on day one, Lingyin Temple and the Longjing tea village on day two.",
    ),
    "cjk-hongshaorou": (
        "cross_lingual",
        "zh",
        "In Chinese: how to make red-braised pork belly less greasy — blanch, render the fat and pour it off, caramelise sugar, then braise an hour with soy sauce and star anise.",
    ),
    "cjk-redis-cache": (
        "cross_lingual",
        "zh",
        "In Chinese: the webshop's slow product list page got five minutes of page caching backed by Redis, via cache_page in the Django views.",
    ),
    "cjk-cuda-driver": (
        "cross_lingual",
        "zh",
        "In Chinese: after a graphics driver update CUDA stopped working and nvidia-smi could not talk to the driver; the kernel module needed rebuilding with dkms.",
    ),
    "cjk-leave-email": (
        "cross_lingual",
        "zh",
        "In Chinese: drafted an email to manager Wang asking for two days of annual leave next Wednesday and Thursday, with a colleague covering urgent matters.",
    ),
    "cjk-vocab-plan": (
        "cross_lingual",
        "zh",
        "In Chinese: a three-month English exam plan of 50 new vocabulary words a day with spaced review and a Sunday test.",
    ),
    "cjk-giscus": (
        "cross_lingual",
        "zh",
        "In Chinese: the blog's comment system was switched from Disqus to giscus, which stores comments in GitHub Discussions.",
    ),
    "cjk-kyoto-momiji": (
        "cross_lingual",
        "ja",
        "In Japanese: when autumn leaves peak in Kyoto (mid-November to early December) and where to see them — Tofukuji, Eikando and Arashiyama, early in the morning.",
    ),
    "cjk-venv": (
        "cross_lingual",
        "ja",
        "In Japanese: how to create and activate a Python virtual environment with python3 -m venv; the check printed Python 3.12.3.",
    ),
    "cjk-tenshutsu": (
        "cross_lingual",
        "ja",
        "In Japanese: a checklist of paperwork for moving from Osaka to Tokyo, starting with the moving-out notice at the Osaka ward office and registering in Tokyo within 14 days.",
    ),
    "cjk-tonkotsu": (
        "cross_lingual",
        "ja",
        "In Japanese: making tonkotsu ramen broth at home — soak pork bones overnight, blanch, then boil hard for over ten hours until milky.",
    ),
    "cjk-imagepull": (
        "cross_lingual",
        "ja",
        "In Japanese: a Kubernetes deployment of the search indexer failed; the pod was in ImagePullBackOff because the namespace lacked the registry pull secret.",
    ),
    "cjk-keigo": (
        "cross_lingual",
        "ja",
        "In Japanese: a polite business email asking a client to postpone a delivery deadline by one week.",
    ),
    "upd-staging-port-old": (
        "update",
        "en",
        "Noted the staging database port for a local SSH tunnel: 5433 on staging-db-1.",
    ),
    "upd-staging-port-new": (
        "update",
        "en",
        "The staging database now sits behind pgbouncer and its port changed to 6432; the old port is closed.",
    ),
    "upd-deploy-day-old": (
        "update",
        "en",
        "The shop's production deploy day was stated as Tuesday after the standup, never Friday.",
    ),
    "upd-deploy-day-new": (
        "update",
        "en",
        "Production deploys moved to Thursday because Tuesday now has the sales meeting.",
    ),
    "upd-nas-ip-old": (
        "update",
        "en",
        "Over Telegram: the NAS had the fixed address 192.168.1.20 on the old router.",
    ),
    "upd-nas-ip-new": (
        "update",
        "en",
        "Over Telegram, after a router change: the NAS's reserved address is now 192.168.178.40.",
    ),
    "upd-ml-python-old": (
        "update",
        "en",
        "The ml-pipeline was pinned to Python 3.10 because of old onnx wheels.",
    ),
    "upd-ml-python-new": (
        "update",
        "en",
        "The ml-pipeline was upgraded to Python 3.12, with the version file and CI matrix updated.",
    ),
    "upd-dentist-old": ("update", "en", "Over Telegram: a dentist appointment noted for May 12 at 10:00."),
    "upd-dentist-new": (
        "update",
        "en",
        "Over Telegram: the dentist moved the appointment to May 19 at 14:30.",
    ),
    "upd-node-version-old": ("update", "en", "The mobile app built with Node 18, pinned in .nvmrc."),
    "upd-node-version-new": ("update", "en", "The mobile app's Node was bumped to 20 (20.15.1 in .nvmrc)."),
    "upd-blog-host-1": ("update", "en", "The blog was hosted on Netlify, deployed from main."),
    "upd-blog-host-2": ("update", "en", "The blog moved from Netlify to Cloudflare Pages."),
    "upd-blog-host-3": (
        "update",
        "en",
        "After running out of Cloudflare build minutes the blog moved again, to GitHub Pages built by a workflow on every push.",
    ),
    "upd-free-shipping-old": ("update", "en", "The shop's free shipping threshold was 50 EUR."),
    "upd-free-shipping-new": (
        "update",
        "en",
        "Marketing raised the free shipping threshold to 60 EUR; banner and cart logic were updated.",
    ),
    "upd-oncall-old": ("update", "en", "Alex was the payments on-call person this quarter."),
    "upd-oncall-new": ("update", "en", "Payments on-call passed from Alex to Priya."),
    "upd-retention-old": ("update", "en", "Backups were retained as 7 daily and 4 weekly snapshots."),
    "upd-retention-new": (
        "update",
        "en",
        "After the audit, backup retention became 14 daily, 8 weekly and 12 monthly snapshots.",
    ),
    "upd-best-ckpt-old": (
        "update",
        "en",
        "The best model checkpoint so far was epoch 12 at 0.873 validation accuracy.",
    ),
    "upd-best-ckpt-new": (
        "update",
        "en",
        "A long training run produced a new best checkpoint, epoch 31 at 0.901 validation accuracy.",
    ),
    "upd-gym-old": ("update", "en", "Gym schedule saved as Monday, Wednesday and Friday mornings at 7."),
    "upd-gym-new": (
        "update",
        "en",
        "With new working hours the gym schedule became Tuesday, Thursday and Saturday at 6 pm.",
    ),
    "upd-staging-api-old": (
        "update",
        "en",
        "The mobile app's staging API base URL was staging-api.shop.example.com.",
    ),
    "upd-staging-api-new": (
        "update",
        "en",
        "With the new cluster the mobile app's staging API base URL changed to api.staging.shop.example.com.",
    ),
    "upd-grafana-old": ("update", "en", "Grafana ran on monitor-01 at port 3000 with an admin login."),
    "upd-grafana-new": (
        "update",
        "en",
        "Grafana moved to grafana.internal.example.com behind SSO while monitor-01 is decommissioned.",
    ),
    "wk-gotenberg": (
        "profile",
        "en",
        "Work profile: invoice PDFs from wkhtmltopdf broke on new fonts in the billing service; the suggestion was a gotenberg sidecar rendering HTML with headless Chromium.",
    ),
    "wk-airflow-sla": (
        "profile",
        "en",
        "Work profile: the daily revenue rollup Airflow DAG got 3 retries and a 06:00 SLA.",
    ),
    "wk-snowflake": (
        "profile",
        "en",
        "Work profile: Snowflake credits were high because the transform warehouse auto-suspended only after 600 seconds; recommended 60 seconds.",
    ),
    "wk-nil-proration": (
        "profile",
        "en",
        "Work profile: the Go billing service panicked with a nil pointer dereference in the proration calculation on downgrades of trial subscriptions with no period.",
    ),
    "wk-jwks": (
        "profile",
        "en",
        "Work profile: how the auth gateway should rotate its JWT signing key through the JWKS endpoint, overlapping keys, every 90 days.",
    ),
    "wk-dbt-incremental": (
        "profile",
        "en",
        "Work profile: the dbt subscriptions fact model took 40 minutes and was made incremental on subscription_id, now about two minutes.",
    ),
    "wk-bill-2231": (
        "profile",
        "en",
        "Work profile: ticket BILL-2231 — stop dunning emails once the customer updates their card.",
    ),
    "wk-vpn": (
        "profile",
        "en",
        "Work profile: office VPN set up as a split tunnel routing only 10.40.0.0/16 and the internal DNS zone.",
    ),
    "wk-okr": (
        "profile",
        "en",
        "Work profile: draft quarterly OKRs for a faster checkout, with a p99 latency target under 300 ms and payment errors below 0.2%.",
    ),
    "wk-kafka-retention": (
        "profile",
        "en",
        "Work profile: summary of a Kafka architecture review — billing topics' retention goes from 3 to 7 days and consumers must be idempotent.",
    ),
    "wk-dbt-cron": (
        "profile",
        "en",
        "Work profile, cron: the nightly dbt build had one failure in the staging payments model because an upstream column was renamed, and four models were skipped.",
    ),
    "wk-x-net": (
        "profile",
        "en",
        "Work profile: a Dependabot CVE in golang.org/x/net was fixed by upgrading to v0.33.0.",
    ),
    "wk-helm-replicas": (
        "profile",
        "en",
        "Work profile: billing-svc was scaled from 2 to 4 replicas in the prod Helm values.",
    ),
    "wk-onboarding": (
        "profile",
        "en",
        "Work profile: an onboarding checklist for a new backend hire, including the Okta groups eng-backend and billing-readonly.",
    ),
}
_OLD_CHAINS = [
    ["upd-staging-port-old", "upd-staging-port-new"],
    ["upd-deploy-day-old", "upd-deploy-day-new"],
    ["upd-nas-ip-old", "upd-nas-ip-new"],
    ["upd-ml-python-old", "upd-ml-python-new"],
    ["upd-dentist-old", "upd-dentist-new"],
    ["upd-node-version-old", "upd-node-version-new"],
    ["upd-blog-host-1", "upd-blog-host-2", "upd-blog-host-3"],
    ["upd-free-shipping-old", "upd-free-shipping-new"],
    ["upd-oncall-old", "upd-oncall-new"],
    ["upd-retention-old", "upd-retention-new"],
    ["upd-best-ckpt-old", "upd-best-ckpt-new"],
    ["upd-gym-old", "upd-gym-new"],
    ["upd-staging-api-old", "upd-staging-api-new"],
    ["upd-grafana-old", "upd-grafana-new"],
]


def old_summaries(cat: Catalog) -> None:
    by_key = {s.key: s for s in cat.sessions}
    for key, (hint, lang, summary) in _OLD_SUMMARIES.items():
        cat.target(by_key[key], hint, summary, lang=lang)
    for chain in _OLD_CHAINS:
        for i, key in enumerate(chain):
            by_key[key].supersedes = [by_key[k] for k in chain[:i]]


HOMESRV = "/home/dev/homeserver"
BOT_TG = "7719204455"  # the bot profile's Telegram chat
BOT_DC = "1187340092215"  # and its Discord DM channel
Turn = tuple[Any, ...]


def mk(
    cat: Catalog,
    key: str,
    hint: str | None,
    summary: str,
    turns: list[Turn],
    *,
    fact: str | None = None,
    lang: str = "en",
    supersedes: list[Sess] | None = None,
    **kw: Any,
) -> Sess:
    """A session from a compact list of turns, marked as a target when ``hint`` is given.

    Turns: ``("u", text)``, ``("a", text)``, ``("sh", command, output[, exit_code])``,
    ``("p", path, old, new)``, ``("w", path, content)``, ``("r", path, text)``,
    ``("web", query, [(title, url, description), ...])``, ``("g", pattern, [(path, line, text), ...])``.
    """
    if kw.get("source") == "telegram":
        kw.setdefault("chat", BOT_TG if kw.get("profile") == "bot" else CHAT)
    if kw.get("source") == "discord":
        kw.setdefault("chat", BOT_DC)
    s = cat.s(key, **kw)
    for turn in turns:
        op, *args = turn
        if op == "u":
            s.u(args[0])
        elif op == "a":
            s.a(args[0])
        elif op == "sh":
            s.sh(args[0], args[1], args[2] if len(args) > 2 else 0)
        elif op == "p":
            s.patch(*args)
        elif op == "w":
            s.write(*args)
        elif op == "r":
            s.read(*args)
        elif op == "web":
            s.web(*args)
        elif op == "g":
            s.grep(*args)
        else:
            raise ValueError(op)
    if hint:
        cat.target(s, hint, summary, fact=fact, lang=lang, supersedes=supersedes)
    return s


def more_keyword(cat: Catalog) -> None:
    rows: list[tuple[str, str, str, list[Turn], dict[str, Any]]] = [
        (
            "kw2-pihole",
            "pihole.bankapp",
            "Pi-hole was blocking the banking app's push domain; it was allow-listed with pihole allow and the app's notifications came back.",
            [
                (
                    "u",
                    "Since I installed Pi-hole the banking app never shows push notifications. Is Pi-hole eating them?",
                ),
                (
                    "sh",
                    "pihole -q push.bankapp-cdn.net",
                    " https://raw.githubusercontent.com/StevenBlack/hosts/master/hosts (block)\n   push.bankapp-cdn.net",
                ),
                (
                    "a",
                    "Yes, the StevenBlack list blocks push.bankapp-cdn.net. I'll allow-list it so the banking app's push notifications get through again.",
                ),
                (
                    "sh",
                    "pihole allow push.bankapp-cdn.net",
                    "  [i] Adding push.bankapp-cdn.net to the allowlist...\n  [✓] Reloading DNS lists",
                ),
            ],
            dict(source="telegram", fact="push.bankapp-cdn.net"),
        ),
        (
            "kw2-git-bisect",
            "webshop.bisect",
            "Used git bisect with a scripted pytest run to find which commit made the product search return duplicates; the culprit was a join added for the brand filter.",
            [
                (
                    "u",
                    "Product search started returning each product twice sometime in the last 40 commits. Can we bisect it?",
                ),
                (
                    "sh",
                    "git bisect start HEAD v2.3.0 && git bisect run pytest -q tests/test_search.py -k duplicates",
                    "c7e21a9 is the first bad commit\ncommit c7e21a9\n    Search: filter by brand via join\nbisect found first bad commit",
                ),
                (
                    "a",
                    "git bisect run pinned it: the brand filter's join on product variants multiplies rows. Adding .distinct() to the search queryset removes the duplicate products.",
                ),
            ],
            dict(cwd=SHOP, title="Bisect duplicate search results", fact="git bisect run"),
        ),
        (
            "kw2-sops-age",
            "infra.sops",
            "Secrets in the infra repo were encrypted with sops using an age key instead of GPG; a .sops.yaml creation rule covers the secrets directory.",
            [
                ("u", "I want to stop committing plaintext secrets to the infra repo. sops with age keys?"),
                (
                    "w",
                    ".sops.yaml",
                    "creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: age1qg3v7n0f8k2mz9xw5c4u6r8t0y2p4l6j8h0d2s4a6f8g0k2m4n6q8rs\n",
                ),
                (
                    "a",
                    "sops now encrypts everything under secrets/ with the age recipient; decrypt locally with SOPS_AGE_KEY_FILE pointing at your age key. Much simpler than GPG.",
                ),
            ],
            dict(
                cwd=INFRA,
                title="sops with age",
                fact="age1qg3v7n0f8k2mz9xw5c4u6r8t0y2p4l6j8h0d2s4a6f8g0k2m4n6q8rs",
            ),
        ),
        (
            "kw2-optuna",
            "ml.optuna",
            "Set up an Optuna hyperparameter search with a median pruner for the classifier's learning rate and weight decay, stored in a SQLite study.",
            [
                (
                    "u",
                    "Let's do a proper hyperparameter search for lr and weight decay instead of guessing. Optuna?",
                ),
                (
                    "w",
                    "pipeline/tune.py",
                    "import optuna\n\nstudy = optuna.create_study(direction='maximize', pruner=optuna.pruners.MedianPruner(n_warmup_steps=3),\n                            storage='sqlite:///optuna_cls.db', study_name='cls-lr-wd')\n",
                ),
                (
                    "a",
                    "Optuna study cls-lr-wd samples lr log-uniform 1e-5..1e-2 and weight decay 0..0.1; the median pruner stops weak trials after 3 epochs.",
                ),
            ],
            dict(cwd=ML, title="Optuna search", fact="cls-lr-wd"),
        ),
        (
            "kw2-hermes-engine",
            "app.hermes",
            "Enabled the Hermes JavaScript engine on Android for the React Native app to cut startup time; the gradle property hermesEnabled was flipped.",
            [
                ("u", "Cold start of the Android app is over 3 seconds. Would the Hermes JS engine help?"),
                ("p", "android/gradle.properties", "hermesEnabled=false", "hermesEnabled=true"),
                (
                    "a",
                    "Hermes precompiles the JS bundle to bytecode, so startup on Android drops noticeably; turned hermesEnabled on. Rebuild with a clean gradle cache.",
                ),
            ],
            dict(cwd=APP, title="Hermes engine on Android", fact="hermesEnabled=true"),
        ),
        (
            "kw2-rss-feed",
            "blog.rss",
            "The blog's RSS feed only carried summaries; the Hugo RSS template was overridden to include full post content and limited to 20 items.",
            [
                (
                    "u",
                    "Readers complain the RSS feed only has the first paragraph. Put the full content in the feed.",
                ),
                (
                    "p",
                    "config/_default/hugo.toml",
                    "[services.rss]\n  limit = -1",
                    "[services.rss]\n  limit = 20",
                ),
                (
                    "a",
                    "The rss.xml layout now uses .Content instead of .Summary inside CDATA, and the feed is capped at 20 items so it stays small.",
                ),
            ],
            dict(cwd=BLOG, title="Full-text RSS"),
        ),
        (
            "kw2-gpg-expired",
            "dot.gpg",
            "Git commit signing failed because the GPG subkey expired; its expiry was extended by two years and the public key re-uploaded to GitHub.",
            [
                (
                    "u",
                    "git commit -S suddenly says my key is expired. Can I just extend the expiry of the GPG subkey?",
                ),
                ("sh", "gpg --quick-set-expire 3AA5C34371567BD2 2y '*'", ""),
                (
                    "a",
                    "Extended the subkeys by two years with quick-set-expire. Export the public key again and replace it in GitHub's GPG keys, otherwise old commits show as unverified.",
                ),
            ],
            dict(cwd=DOT, title="Expired signing key", fact="3AA5C34371567BD2"),
        ),
        (
            "kw2-heic",
            "notes.heic",
            "Converted a folder of iPhone HEIC photos to JPEG for the photo printing service with ImageMagick's mogrify, quality 92.",
            [
                (
                    "u",
                    "The print shop won't take HEIC. Convert the vacation photos in ~/Pictures/lisbon to JPEG.",
                ),
                (
                    "sh",
                    "cd ~/Pictures/lisbon && mogrify -format jpg -quality 92 *.HEIC && ls *.jpg | wc -l",
                    "143",
                ),
                (
                    "a",
                    "All 143 HEIC photos are converted to JPEG at quality 92 next to the originals; the print shop's uploader accepts those.",
                ),
            ],
            dict(cwd=NOTES, title="HEIC to JPEG", fact="mogrify -format jpg"),
        ),
        (
            "kw2-fail2ban",
            "infra.fail2ban",
            "Brute-force SSH attempts on the bastion: fail2ban was installed via Ansible with a sshd jail banning for one hour after 5 failures.",
            [
                ("u", "auth.log on the bastion is full of failed root logins from all over. Add fail2ban."),
                (
                    "w",
                    "ansible/roles/bastion/templates/jail.local.j2",
                    "[sshd]\nenabled = true\nmaxretry = 5\nbantime = 1h\nfindtime = 10m\n",
                ),
                (
                    "a",
                    "fail2ban's sshd jail now bans an address for an hour after 5 failed logins within 10 minutes. Password logins were already off, so this just quiets the logs.",
                ),
            ],
            dict(cwd=INFRA, title="fail2ban on the bastion"),
        ),
        (
            "kw2-htmx",
            "shop.htmx",
            "Made the webshop's wishlist heart button update without a page reload using htmx hx-post and an hx-swap of the button partial.",
            [
                ("u", "Clicking the wishlist heart reloads the whole product page. Can htmx do it in place?"),
                (
                    "p",
                    "shop/templates/product/_wishlist.html",
                    '<form method="post" action="{% url \'wishlist-toggle\' p.pk %}">',
                    '<button hx-post="{% url \'wishlist-toggle\' p.pk %}" hx-swap="outerHTML">',
                ),
                (
                    "a",
                    "The wishlist toggle now posts with htmx and swaps just the heart button with the partial the view returns; no reload, and it still works without JS via the form fallback.",
                ),
            ],
            dict(cwd=SHOP, title="Wishlist with htmx"),
        ),
        (
            "kw2-sentry-sample",
            "app.sentry",
            "Sentry quota for the mobile app ran out mid-month; traces sample rate was cut to 0.05 and the noisy network-request-failed errors are now filtered in beforeSend.",
            [
                (
                    "u",
                    "We burned through the Sentry quota by the 12th. Mostly transactions and 'Network request failed'.",
                ),
                ("p", "src/sentry.ts", "tracesSampleRate: 1.0,", "tracesSampleRate: 0.05,"),
                (
                    "a",
                    "Transactions are now sampled at 5%, and beforeSend drops 'Network request failed' events when the device is offline. That should keep the quota for real crashes.",
                ),
            ],
            dict(cwd=APP, title="Sentry quota", fact="tracesSampleRate: 0.05"),
        ),
        (
            "kw2-tmux-resurrect",
            "dot.tmux",
            "Installed tmux-resurrect and tmux-continuum so tmux sessions survive a reboot, with automatic saves every 15 minutes.",
            [
                ("u", "Every reboot I lose my tmux layout. Is there a plugin that restores sessions?"),
                (
                    "p",
                    "tmux/tmux.conf",
                    "set -g @plugin 'tmux-plugins/tpm'",
                    "set -g @plugin 'tmux-plugins/tpm'\nset -g @plugin 'tmux-plugins/tmux-resurrect'\nset -g @plugin 'tmux-plugins/tmux-continuum'\nset -g @continuum-restore 'on'",
                ),
                (
                    "a",
                    "tmux-resurrect saves windows, panes and working directories; continuum saves every 15 minutes and restores on tmux start. Press prefix + I once to install them.",
                ),
            ],
            dict(cwd=DOT, title="Restore tmux sessions", fact="tmux-continuum"),
        ),
        (
            "kw2-ebike",
            "chat.ebike",
            "Compared two e-bikes for the commute (about 14 km each way); the recommendation was the mid-drive model with a 625 Wh battery over the hub-motor one.",
            [
                (
                    "u",
                    "Trying to choose an e-bike for my 14 km commute with a hill at the end: a hub motor one for 1900 EUR or a mid-drive one with 625 Wh for 2600 EUR.",
                ),
                (
                    "a",
                    "For a daily commute with a climb the mid-drive is worth it: it uses the gears, so the hill costs less battery, and 625 Wh covers a week of round trips on eco mode. The hub motor bike will struggle and heat up on the climb.",
                ),
            ],
            dict(source="telegram", title="E-bike choice", fact="625 Wh"),
        ),
        (
            "kw2-k8s-pdb",
            "infra.pdb",
            "Node drains during upgrades took the catalog service fully down; a PodDisruptionBudget with minAvailable 1 was added to its manifests.",
            [
                (
                    "u",
                    "During the node upgrade both catalog pods got evicted at once and the catalog was down for a minute.",
                ),
                (
                    "w",
                    "k8s/base/catalog/pdb.yaml",
                    "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: catalog\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: catalog\n",
                ),
                (
                    "a",
                    "With a PodDisruptionBudget of minAvailable 1, kubectl drain now waits until one catalog pod is running elsewhere before evicting the second.",
                ),
            ],
            dict(cwd=INFRA, title="PDB for catalog"),
        ),
        (
            "kw2-label-smoothing",
            "ml.smoothing",
            "The classifier was overconfident on ambiguous product photos; label smoothing of 0.1 in the cross-entropy loss improved calibration (ECE from 0.081 to 0.034).",
            [
                (
                    "u",
                    "The classifier says 99% for photos that are honestly ambiguous. Anything cheap to make it less overconfident?",
                ),
                (
                    "p",
                    "pipeline/train.py",
                    "criterion = nn.CrossEntropyLoss()",
                    "criterion = nn.CrossEntropyLoss(label_smoothing=0.1)",
                ),
                (
                    "a",
                    "Label smoothing of 0.1 keeps accuracy and improves calibration: expected calibration error went from 0.081 to 0.034 on the validation set.",
                ),
            ],
            dict(cwd=ML, title="Overconfident classifier", fact="0.034"),
        ),
        (
            "kw2-mastodon-share",
            "blog.mastodon",
            "Added a Mastodon share link to the blog's post footer that asks the reader for their instance first, since there is no central share URL.",
            [
                (
                    "u",
                    "Add a share-on-Mastodon button under posts. There's no single Mastodon URL though, right?",
                ),
                (
                    "p",
                    "layouts/partials/share.html",
                    "<!-- share -->",
                    '<a href="https://share.joinmastodon.org/#text={{ .Title }} {{ .Permalink }}">Share on Mastodon</a>',
                ),
                (
                    "a",
                    "Right, so the button goes through share.joinmastodon.org, which asks the reader for their instance and forwards the post title and link.",
                ),
            ],
            dict(cwd=BLOG, title="Mastodon share", fact="share.joinmastodon.org"),
        ),
        (
            "kw2-psql-timeout",
            "shop.stmt-timeout",
            "An admin report query could hold locks for minutes; a statement_timeout of 30 s was set for the webshop's database role, with the reporting role exempt.",
            [
                (
                    "u",
                    "A runaway admin report query held a lock for 8 minutes and checkout hung. Can Postgres just kill long queries?",
                ),
                ("sh", "psql shop -c \"ALTER ROLE shop_app SET statement_timeout = '30s'\"", "ALTER ROLE"),
                (
                    "a",
                    "The web app's role shop_app now has statement_timeout 30s, so a runaway query is cancelled instead of blocking checkout; the reporting role keeps no limit but runs against the replica.",
                ),
            ],
            dict(cwd=SHOP, title="Statement timeout", fact="shop_app"),
        ),
        (
            "kw2-uv-migrate",
            "ml.uv",
            "Moved the ML pipeline's dependency management from pip-tools to uv; uv lock and uv sync replaced the compile step and installs got much faster.",
            [
                ("u", "pip-compile takes forever in the ml-pipeline. Should we switch to uv?"),
                (
                    "sh",
                    "uv lock && uv sync --frozen",
                    "Resolved 148 packages in 1.21s\nInstalled 148 packages in 3.84s",
                ),
                (
                    "a",
                    "uv resolved the whole lock in about a second and installed everything in under four; requirements.in is gone, pyproject.toml plus uv.lock are the source of truth now.",
                ),
            ],
            dict(cwd=ML, title="pip-tools to uv", fact="Resolved 148 packages"),
        ),
        (
            "kw2-plant-watering",
            "chat.monstera",
            "Advice for a monstera with yellowing lower leaves: overwatering; water only when the top 5 cm are dry and repot into chunky aroid mix.",
            [
                ("u", "My monstera's lower leaves are turning yellow and the soil is always damp."),
                (
                    "a",
                    "Yellow lower leaves plus soggy soil means too much water. Let the top 5 cm dry out before watering, make sure the pot drains, and repot into a chunky aroid mix with bark and perlite in spring.",
                ),
            ],
            dict(source="telegram", title="Monstera leaves"),
        ),
        (
            "kw2-csp-header",
            "infra.csp",
            "Rolled out a Content-Security-Policy for the shop in report-only mode first, sending violations to a report endpoint before enforcing it.",
            [
                ("u", "Security review wants a CSP on the shop. I'm afraid of breaking the Stripe widget."),
                (
                    "p",
                    "ansible/roles/nginx/templates/security_headers.j2",
                    "add_header X-Frame-Options DENY;",
                    "add_header X-Frame-Options DENY;\nadd_header Content-Security-Policy-Report-Only \"default-src 'self'; script-src 'self' https://js.stripe.com; report-uri /csp-report\";",
                ),
                (
                    "a",
                    "Start with Content-Security-Policy-Report-Only: nothing gets blocked, violations go to /csp-report, and after two weeks of clean reports we switch to enforcing. Stripe's js.stripe.com is allowed.",
                ),
            ],
            dict(cwd=INFRA, title="CSP report-only", fact="Content-Security-Policy-Report-Only"),
        ),
        (
            "kw2-cypress-detox",
            "app.detox",
            "Set up Detox end-to-end tests for the React Native login flow on an iOS simulator; the first test logs in and checks the orders tab appears.",
            [
                ("u", "I want real end-to-end tests for the app's login flow. Detox?"),
                (
                    "w",
                    "e2e/login.test.ts",
                    "describe('login', () => {\n  it('shows orders after login', async () => {\n    await element(by.id('email')).typeText('qa@example.com');\n    await element(by.id('login')).tap();\n    await expect(element(by.id('orders-tab'))).toBeVisible();\n  });\n});\n",
                ),
                (
                    "a",
                    "Detox drives the iOS simulator: the login test types the QA account, taps login and waits for the orders tab. Run it with detox test -c ios.sim.debug.",
                ),
            ],
            dict(cwd=APP, title="Detox login test"),
        ),
    ]
    for key, _label, summary, turns, kw in rows:
        fact = kw.pop("fact", None)
        kw.setdefault("title", summary.split(";")[0][:40])
        mk(cat, key, "keyword", summary, turns, fact=fact, **kw)


def more_paraphrase(cat: Catalog) -> None:
    P = "paraphrase"
    mk(
        cat,
        "pp2-n-plus-one",
        P,
        "The order history page issued one SQL query per order line. select_related and prefetch_related on the queryset cut it from about 400 queries to 3.",
        [
            ("u", "The 'my orders' page is slow; the debug toolbar shows about 400 SQL queries."),
            (
                "p",
                "shop/views.py",
                "orders = Order.objects.filter(user=request.user)",
                "orders = Order.objects.filter(user=request.user).select_related('shipping').prefetch_related('lines__product')",
            ),
            (
                "a",
                "Classic N+1: each order line loaded its product separately. With select_related and prefetch_related the page runs 3 queries.",
            ),
        ],
        cwd=SHOP,
        title="Slow my-orders page",
    )
    mk(
        cat,
        "pp2-log-rotation",
        P,
        "Application logs on the app servers had filled /var/log; journald was capped at 500 MB and the app's file logs rotate daily, keeping 14.",
        [
            ("u", "web-01 ran out of disk again and it's all logs under /var/log."),
            (
                "sh",
                "ssh web-01 sudo journalctl --vacuum-size=500M",
                "Vacuuming done, freed 6.2G of archived journals from /var/log/journal",
            ),
            ("p", "ansible/roles/common/templates/journald.conf.j2", "#SystemMaxUse=", "SystemMaxUse=500M"),
            (
                "a",
                "The journal is capped at 500M now and the app's own files rotate daily with 14 kept and compressed.",
            ),
        ],
        cwd=INFRA,
        title="Logs filled the disk",
    )
    mk(
        cat,
        "pp2-early-stop-lr",
        P,
        "Training loss plateaued early; a ReduceLROnPlateau scheduler halving the learning rate after 2 flat epochs got the model unstuck.",
        [
            ("u", "Loss stops improving after epoch 5 and just sits there. More epochs don't help."),
            (
                "p",
                "pipeline/train.py",
                "scheduler = None",
                "scheduler = ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=2)",
            ),
            (
                "a",
                "When the validation loss is flat for 2 epochs the learning rate now halves; in the test run the loss started dropping again at epoch 7.",
            ),
        ],
        cwd=ML,
        title="Loss plateau",
    )
    mk(
        cat,
        "pp2-offline-cart",
        P,
        "The mobile app lost the cart when the phone had no signal; the cart is now persisted to AsyncStorage and synced when the connection returns.",
        [
            (
                "u",
                "Users in the subway add items, lose connection and the cart is empty when they reopen the app.",
            ),
            (
                "p",
                "src/hooks/useCart.ts",
                "const [items, setItems] = useState<Item[]>([]);",
                "const [items, setItems] = usePersistentState<Item[]>('cart', []);",
            ),
            (
                "a",
                "The cart lives in AsyncStorage now and a NetInfo listener pushes it to the server once the device is online again.",
            ),
        ],
        cwd=APP,
        title="Cart lost without signal",
    )
    mk(
        cat,
        "pp2-image-srcset",
        P,
        "Blog pages were heavy on phones because full-size images were served; Hugo image processing now generates 480/960/1600 px WebP variants with srcset.",
        [
            ("u", "The blog loads 4 MB of pictures on my phone. The photos are straight from the camera."),
            (
                "p",
                "layouts/shortcodes/figure.html",
                '<img src="{{ .Get "src" }}"',
                '<img srcset="{{ $small.RelPermalink }} 480w, {{ $mid.RelPermalink }} 960w, {{ $big.RelPermalink }} 1600w"',
            ),
            (
                "a",
                "Hugo now resizes each photo to three WebP widths and the browser picks one via srcset; the post page is about 600 KB on a phone.",
            ),
        ],
        cwd=BLOG,
        title="Heavy images",
    )
    mk(
        cat,
        "pp2-ssh-agent",
        P,
        "Typing the SSH key passphrase over and over: set up the ssh-agent via systemd user unit and AddKeysToAgent in ~/.ssh/config.",
        [
            ("u", "I have to type my SSH key password for every git push. Annoying."),
            ("p", "ssh/config", "Host *", "Host *\n  AddKeysToAgent yes\n  IdentityAgent $SSH_AUTH_SOCK"),
            (
                "a",
                "The ssh-agent now starts as a systemd user service and AddKeysToAgent keeps the unlocked key after the first use, so you type the passphrase once per login.",
            ),
        ],
        cwd=DOT,
        title="Passphrase prompts",
    )
    mk(
        cat,
        "pp2-cart-abandon-coupon",
        P,
        "Marketing wanted customers who leave without paying to get a one-time 10% code after 24 hours; implemented as a daily task that creates single-use coupons.",
        [
            (
                "u",
                "People put stuff in the basket and never pay. Marketing wants to nudge them with a discount a day later.",
            ),
            (
                "w",
                "shop/marketing/winback.py",
                "def issue_winback_coupons():\n    for cart in Cart.objects.stale(hours=24).without_coupon():\n        Coupon.objects.create_single_use(cart.user, percent=10, days_valid=7)\n",
            ),
            (
                "a",
                "A daily job finds baskets untouched for 24 hours and issues a single-use 10% coupon valid 7 days, mailed with the basket contents.",
            ),
        ],
        cwd=SHOP,
        title="Win-back coupons",
    )
    mk(
        cat,
        "pp2-spot-interruption",
        P,
        "GPU training jobs on spot instances died when AWS reclaimed them; checkpointing every 500 steps plus resume-from-latest made them restartable.",
        [
            (
                "u",
                "My training on the cheap spot GPUs keeps getting killed halfway and I start over every time.",
            ),
            (
                "p",
                "pipeline/train.py",
                "for step, batch in enumerate(loader):",
                "start = resume_from_latest(ckpt_dir)\nfor step, batch in enumerate(loader, start=start):\n    if step % 500 == 0:\n        save_checkpoint(ckpt_dir, step)",
            ),
            (
                "a",
                "The loop saves a checkpoint every 500 steps and resumes from the newest one, so a reclaimed instance loses at most a few minutes.",
            ),
        ],
        cwd=ML,
        title="Spot reclaims",
    )
    mk(
        cat,
        "pp2-db-read-replica",
        P,
        "Heavy reporting queries slowed checkout; Django now routes the admin reports to a read replica through a database router.",
        [
            ("u", "When finance runs their monthly export, checkout gets sluggish."),
            (
                "w",
                "shop/db_router.py",
                "class ReportsRouter:\n    def db_for_read(self, model, **hints):\n        return 'replica' if hints.get('reporting') else 'default'\n",
            ),
            (
                "a",
                "Reports read from the replica database via a router, so the primary only serves the shop. Lag is under a second, fine for monthly numbers.",
            ),
        ],
        cwd=SHOP,
        title="Reports on a replica",
    )
    mk(
        cat,
        "pp2-screen-reader",
        P,
        "Accessibility pass on the app: icon-only buttons had no labels for VoiceOver/TalkBack; accessibilityLabel was added to the cart, wishlist and back buttons.",
        [
            ("u", "A blind customer wrote that the app's buttons are just read as 'button'."),
            (
                "p",
                "src/components/IconButton.tsx",
                "<Pressable onPress={onPress}>",
                '<Pressable onPress={onPress} accessibilityRole="button" accessibilityLabel={label}>',
            ),
            (
                "a",
                "Icon buttons now require a label prop that becomes the accessibilityLabel, so VoiceOver says 'Add to cart' instead of 'button'.",
            ),
        ],
        cwd=APP,
        title="Button labels",
    )
    mk(
        cat,
        "pp2-typo-check",
        P,
        "Added a spell check to the blog CI with codespell over content/, with an ignore list for German words and product names.",
        [
            ("u", "Two readers pointed out typos in my last posts. Can CI catch those?"),
            (
                "w",
                ".github/workflows/spelling.yml",
                "on: [push]\njobs:\n  spelling:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: pip install codespell && codespell content/ -I .codespell-ignore\n",
            ),
            (
                "a",
                "codespell now runs on every push over the posts; words like 'Bürgeramt' and product names go into .codespell-ignore.",
            ),
        ],
        cwd=BLOG,
        title="Spelling in CI",
    )
    mk(
        cat,
        "pp2-zombie-procs",
        P,
        "The container accumulated defunct processes because the app ran as PID 1 without reaping children; adding tini as init fixed it.",
        [
            ("u", "ps in the worker container shows hundreds of <defunct> entries after a day."),
            (
                "p",
                "Dockerfile",
                'ENTRYPOINT ["celery", "-A", "shop", "worker"]',
                'ENTRYPOINT ["/usr/bin/tini", "--", "celery", "-A", "shop", "worker"]',
            ),
            (
                "a",
                "The worker spawned subprocesses for PDF rendering and, being PID 1, never reaped them. tini as the entrypoint reaps them.",
            ),
        ],
        cwd=SHOP,
        title="Defunct processes",
    )
    mk(
        cat,
        "pp2-slow-tests",
        P,
        "The webshop test suite took 6 minutes; pytest-xdist with 4 workers plus reusing the test database brought it to about 90 seconds.",
        [
            ("u", "Running the tests takes six minutes, I stopped running them locally."),
            ("sh", "pytest -n 4 --reuse-db -q", "212 passed in 88.4s"),
            (
                "a",
                "With pytest-xdist on 4 workers and --reuse-db the suite runs in under a minute and a half; I put both into pytest.ini so it's the default.",
            ),
        ],
        cwd=SHOP,
        title="Faster test suite",
    )
    mk(
        cat,
        "pp2-clock-drift",
        P,
        "TOTP codes from the home server were rejected because its clock drifted by two minutes; chrony was installed and synced against the router and public pools.",
        [
            ("u", "My 2FA codes generated on the home server keep being rejected, but the phone's work."),
            (
                "sh",
                "chronyc tracking | grep 'System time'",
                "System time     : 118.402115 seconds slow of NTP time",
            ),
            (
                "a",
                "The server's clock was almost two minutes behind, enough to break one-time codes. chrony now keeps it in sync.",
            ),
        ],
        cwd=HOMESRV,
        title="Rejected 2FA codes",
    )
    mk(
        cat,
        "pp2-bundle-size",
        P,
        "The app's JS bundle was bloated by moment.js locales; it was replaced with date-fns and the Android bundle shrank by about 230 KB.",
        [
            ("u", "Our JS bundle grew a lot and I suspect the date library."),
            ("sh", "npx react-native-bundle-visualizer", "moment/locale: 231 KB (18.2%)\nmoment: 53 KB"),
            (
                "a",
                "All moment locales were bundled. I replaced moment with date-fns (only the functions we import get bundled).",
            ),
        ],
        cwd=APP,
        title="Bundle size",
    )
    mk(
        cat,
        "pp2-sleep-schedule",
        P,
        "Advice for getting back to a normal sleep schedule after night shifts: shift bedtime by 30 minutes a day, bright light in the morning, no caffeine after 2 pm.",
        [
            (
                "u",
                "After two weeks of night shifts I can't fall asleep before 4am. How do I get back to normal?",
            ),
            (
                "a",
                "Move bedtime earlier by half an hour each day, get daylight right after waking, keep the bedroom dark and cool, and stop coffee after 2 pm. Expect about a week.",
            ),
        ],
        source="telegram",
        title="Sleep rhythm",
    )
    mk(
        cat,
        "pp2-bot-grocery-budget",
        P,
        "In the assistant bot: the monthly grocery spending kept overshooting; set a weekly 140 EUR envelope and a Sunday meal plan to plan purchases.",
        [
            ("u", "We spend way too much at the supermarket every month. Help me get that under control."),
            (
                "a",
                "Let's use a weekly envelope of 140 EUR instead of a monthly one, plan meals every Sunday and shop from the list once a week. I'll ask you for receipts on Fridays and tell you what's left.",
            ),
        ],
        profile="bot",
        source="telegram",
        title="Grocery spending",
        fact="envelope of 140 EUR",
    )
    mk(
        cat,
        "pp2-bot-jellyfin-transcode",
        P,
        "In the assistant bot: movies stuttered on the living-room TV because Jellyfin was transcoding in software; hardware acceleration with Intel Quick Sync (VAAPI) was enabled.",
        [
            ("u", "Films on the TV keep buffering, and the home server's fan goes crazy while they play."),
            ("sh", "docker exec jellyfin ls /dev/dri", "card0\nrenderD128"),
            (
                "a",
                "The server was converting video on the CPU. The GPU device is available in the container, so I switched Jellyfin's playback to Intel QuickSync via VAAPI on renderD128.",
            ),
        ],
        profile="bot",
        source="discord",
        title="Buffering movies",
    )
    mk(
        cat,
        "pp2-bot-kid-screen-time",
        P,
        "In the assistant bot: limiting the kids' tablet time; the Home Assistant automation now turns off the kids' Wi-Fi profile at 19:30 on school nights.",
        [
            ("u", "The kids are on the tablets until late on school nights. Can the house enforce a cutoff?"),
            (
                "p",
                "/srv/homeassistant/automations.yaml",
                "- alias: placeholder",
                "- alias: kids wifi cutoff\n  trigger:\n    - platform: time\n      at: '19:30:00'\n  condition:\n    - condition: time\n      weekday: [sun, mon, tue, wed, thu]\n  action:\n    - service: switch.turn_off\n      target:\n        entity_id: switch.kids_wifi",
            ),
            ("a", "Done: on school nights the kids' Wi-Fi switches off at half past seven."),
        ],
        profile="bot",
        source="telegram",
        title="Tablet cutoff",
    )
    mk(
        cat,
        "pp2-bot-leak-sensor",
        P,
        "In the assistant bot: a water leak sensor was added under the washing machine with an alert to both phones and a shut-off of the smart valve.",
        [
            (
                "u",
                "The washing machine hose leaked last year and we found it hours later. Can we get warned?",
            ),
            (
                "a",
                "I added the Aqara leak sensor under the machine to Home Assistant: when it gets wet, both phones get a critical notification and the smart valve on the main line closes.",
            ),
        ],
        profile="bot",
        source="telegram",
        title="Leak under the washer",
    )


def more_error(cat: Catalog) -> None:
    E = "error"
    rows: list[tuple[str, str, str, list[Turn], dict[str, Any]]] = [
        (
            "err2-celery-serializer",
            "kombu.exceptions.EncodeError: Object of type Decimal is not JSON serializable",
            "A celery task call failed with a kombu EncodeError because a Decimal order total was passed to the JSON serializer; the amount is now sent as a string.",
            [
                ("u", "Queue the invoice email for order 5512."),
                (
                    "sh",
                    "python manage.py shell -c 'from shop.tasks import send_invoice; send_invoice.delay(5512, total=order.total)'",
                    'Traceback (most recent call last):\n  File "/home/dev/src/webshop/shop/tasks.py", line 140, in send_invoice\nkombu.exceptions.EncodeError: Object of type Decimal is not JSON serializable',
                    1,
                ),
                (
                    "a",
                    "Celery's JSON serializer can't encode Decimal. Pass the total as a string (or just the order id and look the total up in the task).",
                ),
            ],
            dict(cwd=SHOP, title="Invoice task won't queue"),
        ),
        (
            "err2-alembic-heads",
            "Multiple head revisions are present for given argument 'head'",
            "An alembic upgrade in the ML pipeline's metadata DB failed because two branches created separate heads; alembic merge joined them.",
            [
                ("u", "Apply the new migration for the experiment tracking DB."),
                (
                    "sh",
                    "alembic upgrade head",
                    "ERROR [alembic.util.messaging] Multiple head revisions are present for given argument 'head'; please specify a specific target revision, '<branchname>@head' to narrow to a specific head, or 'heads' for all heads\n  FAILED: Multiple head revisions are present",
                    255,
                ),
                (
                    "sh",
                    "alembic merge -m 'merge heads' 3f1a9c 8d2e77 && alembic upgrade head",
                    "Generating migrations/versions/b41c0e_merge_heads.py ...  done\nINFO  [alembic.runtime.migration] Running upgrade 3f1a9c, 8d2e77 -> b41c0e",
                ),
                (
                    "a",
                    "Two branches each added a migration; a merge revision joins them and the upgrade goes through.",
                ),
            ],
            dict(cwd=ML, title="Alembic heads"),
        ),
        (
            "err2-gradle-jdk",
            "Android Gradle plugin requires Java 17 to run. You are currently using Java 11.",
            "The Android build failed because the Gradle plugin needs Java 17 while the machine used Java 11; JAVA_HOME was pointed at JDK 17.",
            [
                ("u", "Build the Android release."),
                (
                    "sh",
                    "cd android && ./gradlew assembleRelease",
                    "FAILURE: Build failed with an exception.\n\n* What went wrong:\nAn exception occurred applying plugin request [id: 'com.android.application']\n> Failed to apply plugin 'com.android.internal.application'.\n   > Android Gradle plugin requires Java 17 to run. You are currently using Java 11.",
                    1,
                ),
                (
                    "a",
                    "The new Android Gradle plugin needs JDK 17. Set JAVA_HOME to the Temurin 17 install (or org.gradle.java.home in gradle.properties) and rerun.",
                ),
            ],
            dict(cwd=APP, title="Android build: Java version"),
        ),
        (
            "err2-terraform-provider",
            "Error: Failed to query available provider packages",
            "terraform init failed to find a provider version matching the constraints because the AWS provider was pinned to ~> 4.0 while a module needed 5.x.",
            [
                ("u", "Init the new environment."),
                (
                    "sh",
                    "terraform init",
                    'Initializing provider plugins...\n- Finding hashicorp/aws versions matching "~> 4.0, >= 5.20.0"...\n╷\n│ Error: Failed to query available provider packages\n│ \n│ Could not retrieve the list of available versions for provider hashicorp/aws: no available releases match the given constraints ~> 4.0, >= 5.20.0',
                    1,
                ),
                ("p", "terraform/versions.tf", 'version = "~> 4.0"', 'version = "~> 5.20"'),
                (
                    "a",
                    "The root pinned the AWS provider to 4.x but the new VPC module needs 5.20 or later; relaxed the root constraint.",
                ),
            ],
            dict(cwd=INFRA, title="Provider constraints"),
        ),
        (
            "err2-psql-auth",
            'FATAL:  password authentication failed for user "reporting"',
            "The reporting user couldn't connect to Postgres after a password rotation; the password in the .pgpass file was stale.",
            [
                ("u", "Run the weekly sales report."),
                (
                    "sh",
                    "psql -h db-01 -U reporting shop -f reports/weekly_sales.sql",
                    'psql: error: connection to server at "db-01" (10.0.7.21), port 5432 failed: FATAL:  password authentication failed for user "reporting"',
                    2,
                ),
                (
                    "a",
                    "The reporting password was rotated on Monday but ~/.pgpass still has the old one. Update it from the vault entry and the report runs.",
                ),
            ],
            dict(cwd=SHOP, title="Reporting login failed"),
        ),
        (
            "err2-hugo-template",
            'execute of template failed: template: _default/single.html:14:9: executing "main" at <.Params.cover.src>: nil pointer evaluating interface {}.src',
            "A Hugo build broke on posts without a cover image: a template accessed .Params.cover.src on a nil value; the access is now wrapped in a with block.",
            [
                ("u", "Build the blog, I added two drafts."),
                (
                    "sh",
                    "hugo --minify",
                    'Error: error building site: render: failed to render pages: render of "page" failed: "/home/dev/src/blog/layouts/_default/single.html:14:9": execute of template failed: template: _default/single.html:14:9: executing "main" at <.Params.cover.src>: nil pointer evaluating interface {}.src',
                    1,
                ),
                (
                    "p",
                    "layouts/_default/single.html",
                    '<img src="{{ .Params.cover.src }}">',
                    '{{ with .Params.cover }}<img src="{{ .src }}">{{ end }}',
                ),
                ("a", "The new drafts have no cover; the template now skips the image in that case."),
            ],
            dict(cwd=BLOG, title="Hugo nil cover"),
        ),
        (
            "err2-pod-oomkilled",
            "Last State:     Terminated\n      Reason:       OOMKilled",
            "The search indexer pod kept restarting; kubectl describe showed it terminated as OOMKilled with exit code 137, and its memory limit was raised to 1Gi.",
            [
                ("u", "The indexer restarts every hour or so."),
                (
                    "sh",
                    "kubectl describe pod -n search indexer-5c7d9b8f6-q8wzt | sed -n '/Last State/,/Exit Code/p'",
                    "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137",
                    1,
                ),
                ("p", "k8s/base/search/indexer.yaml", "memory: 512Mi", "memory: 1Gi"),
                ("a", "It runs out of memory during the hourly full reindex; doubled the limit."),
            ],
            dict(cwd=INFRA, title="Indexer restarts"),
        ),
        (
            "err2-pip-hash",
            "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE",
            "A Docker build failed because pip's hash checking mode rejected a wheel; the lock file had been compiled on another platform, so hashes were regenerated with --generate-hashes for linux.",
            [
                ("u", "The CI image build broke overnight without code changes."),
                (
                    "sh",
                    "docker build -t webshop:ci .",
                    "#11 18.22 ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please update the hashes.\n#11 18.22     pillow==10.3.0 from https://files.pythonhosted.org/packages/pillow-10.3.0-cp312-cp312-manylinux_2_28_x86_64.whl:\n#11 18.22         Expected sha256 5f0c1b8a...\n#11 18.22              Got        e44d2a91...",
                    1,
                ),
                (
                    "a",
                    "requirements.txt was compiled on a Mac, so the Linux wheel's hash is missing. Regenerate it with pip-compile --generate-hashes inside the Linux builder.",
                ),
            ],
            dict(cwd=SHOP, title="Hash mismatch in CI"),
        ),
        (
            "err2-metro-port",
            "error listen EADDRINUSE: address already in use :::8081",
            "Metro bundler wouldn't start because port 8081 was taken by a stale Metro process; killing it fixed the app start.",
            [
                ("u", "Start the app in the simulator."),
                (
                    "sh",
                    "npx react-native start",
                    "error listen EADDRINUSE: address already in use :::8081.\nError: listen EADDRINUSE: address already in use :::8081\n    at Server.setupListenHandle [as _listen2] (node:net:1872:16)",
                    1,
                ),
                ("sh", "lsof -ti :8081 | xargs kill && npx react-native start", "Welcome to Metro v0.80.9"),
                (
                    "a",
                    "An old Metro instance from yesterday was still holding the port; killed it and Metro is up.",
                ),
            ],
            dict(cwd=APP, title="Metro won't start"),
        ),
        (
            "err2-ansible-vault",
            "ERROR! Attempting to decrypt but no vault secrets found",
            "Running the database playbook failed because vaulted variables needed a password that wasn't supplied; the vault password file is now set in ansible.cfg.",
            [
                ("u", "Run the database playbook against staging."),
                (
                    "sh",
                    "ansible-playbook -i inventory/staging db.yml",
                    "ERROR! Attempting to decrypt but no vault secrets found",
                    1,
                ),
                (
                    "p",
                    "ansible.cfg",
                    "[defaults]",
                    "[defaults]\nvault_password_file = ~/.config/ansible/vault-pass",
                ),
                (
                    "a",
                    "group_vars/db/vault.yml is encrypted and no password was given; ansible.cfg now points at the vault password file so the playbook runs without --ask-vault-pass.",
                ),
            ],
            dict(cwd=INFRA, title="Vault password"),
        ),
        (
            "err2-shape-mismatch",
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x2048 and 512x37)",
            "Swapping the backbone from resnet18 to resnet50 broke the classifier head with a shape mismatch (2048 vs 512 features); the head now reads in_features from the backbone.",
            [
                ("u", "Try the resnet50 backbone with the existing head."),
                (
                    "sh",
                    "python -m pipeline.train --backbone resnet50 --epochs 1",
                    '  File "/home/dev/src/ml-pipeline/pipeline/model.py", line 31, in forward\n    return self.head(self.backbone(x))\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (32x2048 and 512x37)',
                    1,
                ),
                (
                    "p",
                    "pipeline/model.py",
                    "self.head = nn.Linear(512, n_classes)",
                    "self.head = nn.Linear(self.backbone.fc.in_features, n_classes)",
                ),
                (
                    "a",
                    "resnet50 outputs 2048 features, the head was hard-coded for resnet18's 512; it now asks the backbone.",
                ),
            ],
            dict(cwd=ML, title="Head shape mismatch"),
        ),
        (
            "err2-git-lfs",
            "Encountered 3 file(s) that should have been pointers, but weren't",
            "After cloning, git status complained about files that should have been LFS pointers; the images were re-added through git lfs migrate import.",
            [
                ("u", "Fresh clone of the blog shows modified images right away."),
                (
                    "sh",
                    "git status",
                    "Encountered 3 file(s) that should have been pointers, but weren't:\n\tstatic/img/header.jpg\n\tstatic/img/lisbon-1.jpg\n\tstatic/img/lisbon-2.jpg",
                    1,
                ),
                (
                    "sh",
                    "git lfs migrate import --include='static/img/*.jpg' --everything",
                    "migrate: Sorting commits: ..., done.\nmigrate: Rewriting commits: 100% (412/412), done.",
                ),
                ("a", "Three images were committed before the LFS rule existed; migrated them into LFS."),
            ],
            dict(cwd=BLOG, title="LFS pointers"),
        ),
        (
            "err2-nginx-upstream",
            "upstream timed out (110: Connection timed out) while reading response header from upstream",
            "Customers saw 504s on the order export; the nginx error log showed upstream timeouts reading the response header, so the export was moved to a background job.",
            [
                ("u", "Support says the order CSV export gives a 504."),
                (
                    "sh",
                    "ssh web-01 sudo tail -n 1 /var/log/nginx/error.log && ssh web-01 curl -s -o /dev/null -w '%{http_code}' localhost/admin/orders/export",
                    '2026/04/02 10:14:07 [error] 1123#1123: *88412 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.0.1.5, server: shop.example.com, request: "GET /admin/orders/export HTTP/1.1"\n504',
                    22,
                ),
                (
                    "a",
                    "The export takes longer than nginx's 60 s proxy timeout. Rather than raising it, the export becomes a celery task that emails a download link.",
                ),
            ],
            dict(cwd=INFRA, title="504 on export"),
        ),
        (
            "err2-disk-quota",
            "OSError: [Errno 122] Disk quota exceeded",
            "Writing preprocessed tensors on the shared GPU box failed with a disk quota error; the cache was moved to the scratch volume.",
            [
                ("u", "Preprocess the full dataset on the GPU box."),
                (
                    "sh",
                    "python -m pipeline.preprocess --out ~/cache/tensors",
                    'Traceback (most recent call last):\n  File "/home/dev/src/ml-pipeline/pipeline/preprocess.py", line 77, in save_shard\n    torch.save(shard, path)\nOSError: [Errno 122] Disk quota exceeded',
                    1,
                ),
                (
                    "a",
                    "The home directory quota on the shared box is 50 GB. Point --out at /scratch/dev instead; it's not backed up but has 2 TB.",
                ),
            ],
            dict(cwd=ML, title="Quota exceeded"),
        ),
        (
            "err2-yaml-indent",
            "yaml: line 23: did not find expected key",
            "The CI workflow file was rejected by GitHub with a YAML parse error at line 23; a mis-indented step was fixed.",
            [
                ("u", "The workflow doesn't start at all after my edit."),
                (
                    "sh",
                    "actionlint .github/workflows/ci.yml",
                    ".github/workflows/ci.yml:23:5: could not parse as YAML: yaml: line 23: did not find expected key [syntax-check]",
                    1,
                ),
                (
                    "a",
                    "The new cache step is indented by three spaces instead of four, so it's outside the steps list. Fixed the indentation.",
                ),
            ],
            dict(cwd=SHOP, title="Workflow parse error"),
        ),
        (
            "err2-go-race",
            "WARNING: DATA RACE",
            "Work profile: go test -race in billing-svc found a data race on the invoice counter map in the webhook retry worker; a mutex was added.",
            [
                ("u", "Run the billing tests with the race detector before the release."),
                (
                    "sh",
                    "go test -race ./internal/webhooks/...",
                    "==================\nWARNING: DATA RACE\nWrite at 0x00c0001a4180 by goroutine 23:\n  runtime.mapassign_faststr()\n  billing-svc/internal/webhooks.(*Retrier).markAttempt()\n      /home/dev/work/billing-svc/internal/webhooks/retry.go:52 +0x84\n==================\nFAIL\tbilling-svc/internal/webhooks\t0.921s",
                    1,
                ),
                (
                    "p",
                    "internal/webhooks/retry.go",
                    "\tr.attempts[id]++",
                    "\tr.mu.Lock()\n\tr.attempts[id]++\n\tr.mu.Unlock()",
                ),
                (
                    "a",
                    "Two retry goroutines wrote the attempts map at once; guarded it with a mutex, -race is clean.",
                ),
            ],
            dict(cwd=BILL, profile="work", title="Race in webhook retries"),
        ),
        (
            "err2-snowflake-quota",
            "Resource monitor REPORTING_RM has exceeded its quota",
            "Work profile: Looker dashboards stopped loading because the Snowflake reporting warehouse hit its resource monitor quota and was suspended.",
            [
                ("u", "Dashboards show 'warehouse suspended' since this morning."),
                (
                    "sh",
                    "snowsql -q 'select 1' -o warehouse=REPORTING_WH",
                    "000630 (57014): Statement 01b2c3d4 aborted: Resource monitor REPORTING_RM has exceeded its quota; warehouse REPORTING_WH suspended.",
                    1,
                ),
                (
                    "a",
                    "The monthly credit quota on the reporting monitor is used up after the backfill. Raise it for this month or move the backfill to the transform warehouse.",
                ),
            ],
            dict(cwd=DATA, profile="work", title="Reporting warehouse suspended"),
        ),
        (
            "err2-dbt-compile",
            "Compilation Error in model int_invoices_enriched",
            "Work profile: a dbt run failed to compile the int_invoices_enriched model because it referenced a model that had been renamed; the ref was updated.",
            [
                ("u", "dbt run for the finance marts."),
                (
                    "sh",
                    "dbt run --select +fct_invoices",
                    "Compilation Error in model int_invoices_enriched (models/intermediate/int_invoices_enriched.sql)\n  Model 'model.data_platform.int_invoices_enriched' depends on a node named 'stg_invoice_items' which was not found",
                    1,
                ),
                (
                    "p",
                    "models/intermediate/int_invoices_enriched.sql",
                    "{{ ref('stg_invoice_items') }}",
                    "{{ ref('stg_invoice_lines') }}",
                ),
                ("a", "The staging model was renamed last sprint; fixed the reference."),
            ],
            dict(cwd=DATA, profile="work", title="dbt compile error"),
        ),
        (
            "err2-jwt-clock",
            'JWTClaimValidationFailed: "iat" claim timestamp check failed (it should be in the past)',
            "Work profile: the auth gateway rejected fresh tokens from one node with a jose iat claim check error; that node's clock ran ahead, fixed with chrony and a 30 s clock tolerance.",
            [
                ("u", "About a third of logins fail with 401 right after signing in."),
                (
                    "sh",
                    "kubectl logs -n auth deploy/auth-gateway | grep -m1 JWTClaim",
                    'JWTClaimValidationFailed: "iat" claim timestamp check failed (it should be in the past)\n    at validateClaims (node_modules/jose/dist/node/cjs/lib/jwt_claims_set.js:92:19)',
                    1,
                ),
                (
                    "a",
                    "One node's clock is ahead, so tokens it issues look like they come from the future. Fixed time sync there and gave the verifier a 30 second clockTolerance.",
                ),
            ],
            dict(cwd=AUTH, profile="work", title="iat check failures"),
        ),
        (
            "err2-helm-immutable",
            "spec.selector: Invalid value: v1.LabelSelector",
            "Work profile: a helm upgrade of billing-svc failed because the deployment's label selector changed, which Kubernetes treats as immutable; the deployment had to be recreated.",
            [
                ("u", "Deploy the new billing-svc chart version."),
                (
                    "sh",
                    "helm upgrade billing-svc deploy/helm -f deploy/helm/values-prod.yaml",
                    'Error: UPGRADE FAILED: cannot patch "billing-svc" with kind Deployment: Deployment.apps "billing-svc" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app.kubernetes.io/name":"billing-svc"}}: field is immutable',
                    1,
                ),
                (
                    "a",
                    "The chart switched to the standard app.kubernetes.io labels, and the selector can't change in place. Delete the deployment with --cascade=orphan and upgrade again so the pods are adopted.",
                ),
            ],
            dict(cwd=BILL, profile="work", title="Immutable selector"),
        ),
    ]
    for key, fact, summary, turns, kw in rows:
        mk(cat, key, E, summary, turns, fact=fact, **kw)


def more_path(cat: Catalog) -> None:
    rows: list[tuple[str, str, str, str, str, str, str, dict[str, Any]]] = [
        # key, path (relative to cwd), old ("" = write), new, user, reply, summary, kw
        (
            "path2-throttle",
            "shop/api/throttling.py",
            "",
            "from rest_framework.throttling import UserRateThrottle\n\n\nclass BurstRateThrottle(UserRateThrottle):\n    scope = 'burst'\n",
            "Add a burst throttle for the public API, 60 a minute per user.",
            "Added BurstRateThrottle with the 'burst' scope at 60/min; it's in DEFAULT_THROTTLE_CLASSES now.",
            "Created a DRF throttling module in the webshop API with a per-user burst throttle of 60 requests a minute.",
            dict(cwd=SHOP),
        ),
        (
            "path2-signals",
            "shop/inventory/signals.py",
            "@receiver(post_save, sender=OrderLine)",
            "@receiver(post_save, sender=OrderLine, dispatch_uid='reserve_stock')",
            "Stock gets reserved twice per order line sometimes.",
            "The signal was connected twice because the module is imported from two apps; a dispatch_uid makes the receiver register once.",
            "Stock was double-reserved because a post_save receiver in the inventory app registered twice; a dispatch_uid was added to its decorator.",
            dict(cwd=SHOP),
        ),
        (
            "path2-vpc-flowlogs",
            "terraform/modules/vpc/flow_logs.tf",
            "",
            'resource "aws_flow_log" "this" {\n  vpc_id          = aws_vpc.this.id\n  traffic_type    = "REJECT"\n  log_destination = aws_cloudwatch_log_group.flow.arn\n}\n',
            "Turn on VPC flow logs, rejected traffic only, to CloudWatch.",
            "Flow logs for rejected traffic go to a CloudWatch log group with 30-day retention.",
            "Added VPC flow logs for rejected traffic, shipped to CloudWatch, in a new file of the Terraform VPC module.",
            dict(cwd=INFRA),
        ),
        (
            "path2-hpa",
            "k8s/base/checkout/hpa.yaml",
            "",
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: checkout-api\nspec:\n  minReplicas: 3\n  maxReplicas: 12\n  metrics:\n    - type: Resource\n      resource:\n        name: cpu\n        target:\n          type: Utilization\n          averageUtilization: 65\n",
            "Autoscale checkout-api on CPU for the sale weekend.",
            "checkout-api scales between 3 and 12 replicas at 65% CPU.",
            "Created a HorizontalPodAutoscaler manifest for checkout-api (3 to 12 replicas, 65% CPU) in the base kustomize tree.",
            dict(cwd=INFRA),
        ),
        (
            "path2-augment",
            "pipeline/augment.py",
            "T.RandomHorizontalFlip(),",
            "T.RandomHorizontalFlip(),\n    T.RandAugment(num_ops=2, magnitude=9),",
            "Add RandAugment to the training transforms.",
            "RandAugment with 2 ops at magnitude 9 runs after the flip.",
            "Added RandAugment (2 ops, magnitude 9) to the ML pipeline's augmentation module after the horizontal flip.",
            dict(cwd=ML),
        ),
        (
            "path2-dataset-card",
            "data/README.md",
            "",
            "# Product photos v3\n\n- 41,200 images, 37 classes\n- split 80/10/10 by product id\n- license: internal use only\n",
            "Write a short dataset card for the product photos.",
            "The dataset card lists size, classes, split and license.",
            "Wrote a dataset card README for the product photo dataset (41,200 images, 37 classes, split by product id).",
            dict(cwd=ML),
        ),
        (
            "path2-theme-ts",
            "src/theme/colors.ts",
            "primary: '#0a7cff',",
            "primary: '#0057d9',\n  primaryContrast: '#ffffff',",
            "The primary blue fails contrast checks on white text.",
            "Darkened the primary to #0057d9, which passes AA with white text.",
            "The app's primary colour failed contrast; the theme colours file now uses a darker blue #0057d9 with a white contrast colour.",
            dict(cwd=APP),
        ),
        (
            "path2-podfile",
            "ios/Podfile",
            "platform :ios, '13.4'",
            "platform :ios, '15.1'",
            "The new maps SDK wants a newer iOS target.",
            "Raised the iOS deployment target to 15.1 and ran pod install.",
            "Raised the iOS deployment target in the Podfile from 13.4 to 15.1 for the new maps SDK.",
            dict(cwd=APP),
        ),
        (
            "path2-netlify-redirects",
            "static/_redirects",
            "",
            "/posts/django-5/  /posts/webshop-django-5/  301\n/feed.xml  /index.xml  301\n",
            "Old links to the Django post and the feed 404 after the slug change.",
            "Added 301 redirects for the renamed post and the old feed URL.",
            "Added a redirects file to the blog's static folder with 301s for the renamed Django post and the old feed URL.",
            dict(cwd=BLOG),
        ),
        (
            "path2-archetype",
            "archetypes/posts.md",
            "",
            '---\ntitle: "{{ replace .File.ContentBaseName "-" " " | title }}"\ndate: {{ .Date }}\ndraft: true\ntags: []\ncover:\n  src: ""\n---\n',
            "Make hugo new posts/x.md prefill tags and a cover.",
            "New posts start as drafts with empty tags and a cover block.",
            "Created a Hugo archetype for posts that prefills draft, tags and an empty cover block.",
            dict(cwd=BLOG),
        ),
        (
            "path2-gitattributes",
            "git/gitattributes_global",
            "",
            "*.ipynb diff=jupyternotebook\n*.lockb binary\n",
            "Make git diffs of notebooks readable everywhere.",
            "A global gitattributes uses nbdime's driver for notebooks.",
            "Set up a global gitattributes file in the dotfiles so notebook diffs go through nbdime.",
            dict(cwd=DOT),
        ),
        (
            "path2-kitty",
            "/home/dev/.config/kitty/kitty.conf",
            "font_size 11.0",
            "font_size 12.5\nbackground_opacity 0.96",
            "Text in kitty is too small on the new monitor.",
            "Font size 12.5 and a slightly translucent background.",
            "Bumped the kitty terminal font to 12.5 and set a 0.96 background opacity in the kitty config under ~/.config.",
            dict(cwd=DOT),
        ),
        (
            "path2-budget-csv",
            "/home/dev/notes/finance/budget-2026.csv",
            "",
            "category,monthly_eur\nrent,1180\ngroceries,560\ntransport,89\nsavings,700\n",
            "Start a budget sheet for this year.",
            "The budget sheet has rent, groceries, transport and savings.",
            "Started the 2026 personal budget CSV in the notes' finance folder (rent 1180, groceries 560, transport 89, savings 700 a month).",
            dict(cwd=NOTES),
        ),
        (
            "path2-wk-ledger",
            "internal/ledger/entry.go",
            "type Entry struct {",
            "// Entry is immutable once posted; corrections are new entries.\ntype Entry struct {",
            "Document that ledger entries are never updated.",
            "Added the doc comment on Entry.",
            "Work profile: documented in the billing service's ledger entry type that posted entries are immutable and corrections are new entries.",
            dict(cwd=BILL, profile="work"),
        ),
        (
            "path2-wk-taxrates",
            "internal/tax/rates_eu.yaml",
            "",
            "AT: 20\nDE: 19\nFR: 20\nIT: 22\nNL: 21\n",
            "Move the EU VAT rates out of the code into a YAML file.",
            "The rates load from the YAML at startup.",
            "Work profile: moved the EU VAT rates of the billing service into a YAML file in the tax package.",
            dict(cwd=BILL, profile="work"),
        ),
        (
            "path2-wk-sources",
            "models/staging/sources.yml",
            "    tables:\n      - name: payments",
            "    tables:\n      - name: payments\n        loaded_at_field: _loaded_at\n        freshness:\n          warn_after: {count: 6, period: hour}",
            "Warn when the payments source is stale.",
            "Source freshness warns after 6 hours.",
            "Work profile: added a source freshness check (warn after 6 hours) for the payments source in the dbt staging sources file.",
            dict(cwd=DATA, profile="work"),
        ),
        (
            "path2-wk-dag-churn",
            "dags/weekly_churn_report.py",
            "schedule='@weekly'",
            "schedule='0 6 * * MON'",
            "The churn report should land Monday morning, not Sunday midnight.",
            "It's scheduled for Mondays at 06:00 UTC now.",
            "Work profile: the weekly churn report Airflow DAG was rescheduled to Mondays 06:00 UTC.",
            dict(cwd=DATA, profile="work"),
        ),
        (
            "path2-wk-ratelimit",
            "src/middleware/rateLimit.ts",
            "windowMs: 60_000, max: 100",
            "windowMs: 60_000, max: 20, keyGenerator: (req) => req.body?.email ?? req.ip",
            "Limit password reset attempts per email, not just per IP.",
            "Password resets are limited to 20 a minute per email address.",
            "Work profile: the auth gateway's rate-limit middleware now keys password resets by email with 20 per minute.",
            dict(cwd=AUTH, profile="work"),
        ),
        (
            "path2-wk-openapi",
            "api/openapi.yaml",
            "  /v1/invoices/{id}:",
            "  /v1/invoices/{id}/void:\n    post:\n      summary: Void an unpaid invoice\n  /v1/invoices/{id}:",
            "Add the void endpoint to the API spec.",
            "POST /v1/invoices/{id}/void is in the spec.",
            "Work profile: added a POST endpoint to void unpaid invoices to the billing service's OpenAPI spec.",
            dict(cwd=BILL, profile="work"),
        ),
    ]
    for key, rel, old, new, user, reply, summary, kw in rows:
        turns: list[Turn] = [("u", user), ("w", rel, new) if not old else ("p", rel, old, new), ("a", reply)]
        fact = (
            "schedule='0 6 * * MON'" if key == "path2-wk-dag-churn" else rel
        )  # the DAG's path is listed elsewhere
        mk(cat, key, "path", summary, turns, fact=fact, title=user.rstrip(".?")[:50], **kw)


def more_tool_output(cat: Catalog) -> None:
    # key, user, tool turn, reply, fact (only in the tool's output), summary, kw
    rows: list[tuple[str, str, Turn, str, str, str, dict[str, Any]]] = [
        (
            "to2-redis-mem",
            "How much memory is Redis using on the shop?",
            (
                "sh",
                "redis-cli info memory | grep -E 'used_memory_human|maxmemory_policy'",
                "used_memory_human:1.87G\nmaxmemory_policy:allkeys-lru",
            ),
            "It's a bit under two gigabytes and evicts least recently used keys when full, fine for a cache.",
            "1.87G",
            "Checked the shop's Redis memory. redis-cli reported 1.87G used and the allkeys-lru eviction policy; both values only appear in the command output.",
            dict(cwd=SHOP),
        ),
        (
            "to2-slow-query",
            "Which query is the slowest in Postgres right now?",
            (
                "sh",
                "psql shop -c 'select left(query,60), mean_exec_time from pg_stat_statements order by 2 desc limit 1'",
                "                             left                             | mean_exec_time\n--------------------------------------------------------------+----------------\n SELECT * FROM shop_product WHERE search_vector @@ plainto_ts | 2841.7",
            ),
            "The full-text product search is the slowest on average; I'll look at its index.",
            "2841.7",
            "Asked for the slowest statement in pg_stat_statements: a product full-text search averaging 2841.7 ms, a number that is only in the psql output.",
            dict(cwd=SHOP),
        ),
        (
            "to2-ssl-labs",
            "Is the shop's TLS config any good?",
            (
                "web",
                "ssllabs shop.example.com grade",
                [
                    (
                        "SSL Server Test: shop.example.com",
                        "https://www.ssllabs.com/ssltest/analyze.html?d=shop.example.com",
                        "Overall Rating: A+ — TLS 1.3 supported, HSTS with long duration deployed, OCSP stapling: yes",
                    )
                ],
            ),
            "It scores well; nothing urgent to change.",
            "OCSP stapling: yes",
            "Looked up the shop's SSL Labs result: the page reported an A+ rating with TLS 1.3, long HSTS and OCSP stapling, details that are only in the search result.",
            dict(cwd=INFRA),
        ),
        (
            "to2-aws-bill",
            "What did EC2 cost last month?",
            (
                "sh",
                "aws ce get-cost-and-usage --time-period Start=2026-03-01,End=2026-04-01 --granularity MONTHLY --metrics UnblendedCost --filter file://ec2.json --query 'ResultsByTime[0].Total.UnblendedCost.Amount'",
                '"1843.27"',
            ),
            "A bit higher than February, mostly the sale weekend's extra nodes.",
            "1843.27",
            "Cost Explorer query for March EC2 spend returned 1843.27 USD; the figure was never repeated in the conversation.",
            dict(cwd=INFRA),
        ),
        (
            "to2-k8s-version",
            "Which Kubernetes version is the control plane on?",
            (
                "sh",
                "kubectl version -o yaml | grep gitVersion",
                "  gitVersion: v1.30.2\n  gitVersion: v1.29.6-eks-1de2ab1",
            ),
            "The client is a minor ahead of the server, which is within the supported skew.",
            "v1.29.6-eks-1de2ab1",
            "Checked the cluster's Kubernetes version: the output showed the EKS server build v1.29.6-eks-1de2ab1 and a v1.30 client; the exact strings are only in the tool output.",
            dict(cwd=INFRA),
        ),
        (
            "to2-dataset-balance",
            "How balanced are the classes in the training set?",
            (
                "sh",
                "python -m pipeline.stats --split train --top 2 --bottom 1",
                "most:  sneakers 4112\n       backpacks 3390\nleast: umbrellas 211",
            ),
            "Quite imbalanced; the smallest class has about a twentieth of the largest. Weighted sampling would help.",
            "umbrellas 211",
            "Looked at class balance in the training split: the stats script showed sneakers as the largest class and umbrellas with only 211 images, which is only in the script's output.",
            dict(cwd=ML),
        ),
        (
            "to2-gpu-util",
            "Is the GPU actually busy during training?",
            (
                "sh",
                "nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader",
                "37 %, 11022 MiB",
            ),
            "It's mostly idle; the data loader is the bottleneck. More workers and pinned memory next.",
            "37 %, 11022 MiB",
            "Checked GPU utilisation during training; nvidia-smi showed only 37 % utilisation with about 11 GB used (values only in the output), pointing at the data loader.",
            dict(cwd=ML),
        ),
        (
            "to2-app-size",
            "How big is the release APK now?",
            (
                "sh",
                "ls -lh android/app/build/outputs/apk/release/",
                "-rw-r--r-- 1 dev dev 38M Apr  9 11:02 app-release.apk",
            ),
            "Smaller than before the Hermes switch, good enough for the store.",
            "38M",
            "Checked the Android release APK's size after a build; ls showed 38M, a number that only the tool output gives.",
            dict(cwd=APP),
        ),
        (
            "to2-expo-doctor",
            "Anything wrong with the app's dependencies?",
            (
                "sh",
                "npx expo-doctor",
                "✖ Check that packages match versions required by installed Expo SDK\nThe following packages should be updated for best compatibility:\n  react-native-svg@15.1.0 - expected version: 15.2.0",
            ),
            "One package is slightly behind the SDK's expectation; harmless but I'll bump it.",
            "15.2.0",
            "Ran expo-doctor on the app; it flagged react-native-svg 15.1.0 where 15.2.0 is expected — the package and versions only appear in the doctor's output.",
            dict(cwd=APP),
        ),
        (
            "to2-blog-pages",
            "How many posts are published?",
            (
                "sh",
                'hugo list all | awk -F, \'NR>1 {print ($4=="true" ? "drafts" : "published")}\' | sort | uniq -c',
                "      6 drafts\n     87 published",
            ),
            "A decent archive; about two a month since the start.",
            "87 published",
            "Counted the blog's published posts with hugo list; the count only appears in the command output.",
            dict(cwd=BLOG),
        ),
        (
            "to2-uptime",
            "How long has the NAS been up?",
            (
                "sh",
                "ssh nas-01 uptime",
                " 21:14:03 up 213 days,  4:51,  1 user,  load average: 0.31, 0.29, 0.27",
            ),
            "A long time without a reboot, so it's missing kernel updates. Let's schedule one.",
            "up 213 days",
            "Checked the NAS's uptime; the uptime output said 213 days, which was never repeated in the chat.",
            dict(source="telegram"),
        ),
        (
            "to2-brew-outdated",
            "What's outdated in Homebrew?",
            ("sh", "brew outdated --quiet", "ffmpeg\ngh\nneovim"),
            "Three formulae; nothing critical.",
            "ffmpeg\ngh\nneovim",
            "Listed outdated Homebrew formulae in the dotfiles session; brew named ffmpeg, gh and neovim — the list only appears in the tool output.",
            dict(cwd=DOT),
        ),
        (
            "to2-bot-speedtest",
            "[cron] Weekly internet speed check.",
            ("sh", "speedtest-cli --simple", "Ping: 14.2 ms\nDownload: 231.88 Mbit/s\nUpload: 38.41 Mbit/s"),
            "Within the contract's range this week.",
            "231.88",
            "Bot profile cron: the weekly speed test gave a download of 231.88 Mbit/s and 38.41 up; the numbers are only in the speedtest output.",
            dict(profile="bot", source="cron", job="b7d1e3f5a9c0", title="Weekly speed check"),
        ),
        (
            "to2-bot-ha-battery",
            "Any sensors with low batteries?",
            (
                "sh",
                "curl -s -H 'Authorization: Bearer $HA_TOKEN' http://ha.lan:8123/api/states | jq -r '.[] | select(.attributes.device_class==\"battery\" and (.state|tonumber) < 20) | .entity_id + \" \" + .state'",
                "sensor.hallway_motion_battery 12\nsensor.garage_door_contact_battery 7",
            ),
            "Two sensors need new coin cells soon, the garage one first.",
            "garage_door_contact_battery 7",
            "Bot profile: asked Home Assistant for low batteries; the API listed the hallway motion sensor at 12% and the garage door contact at 7% — only in the tool output.",
            dict(profile="bot", source="telegram", title="Low batteries"),
        ),
        (
            "to2-bot-jellyfin-lib",
            "How many movies are in Jellyfin?",
            (
                "sh",
                "curl -s 'http://jellyfin.lan:8096/Items/Counts?api_key=$JF_KEY'",
                '{"MovieCount":642,"SeriesCount":58,"EpisodeCount":2217}',
            ),
            "A good size; the series library grew the most this year.",
            'MovieCount":642',
            "Bot profile: queried Jellyfin's item counts; the API returned 642 movies, 58 series and 2217 episodes, numbers that only the tool output holds.",
            dict(profile="bot", source="discord", title="Jellyfin library size"),
        ),
        (
            "to2-bot-backup-size",
            "[cron] Report the size of the family photo backup.",
            (
                "sh",
                "restic -r b2:family-photos stats --mode raw-data | tail -2",
                "  Total Size:  418.337 GiB\n  Compression Ratio: 1.02x",
            ),
            "Backup is healthy; photos barely compress, as expected.",
            "418.337 GiB",
            "Bot profile cron: restic stats for the family photo repository on B2 reported 418.337 GiB stored, a figure only in the output.",
            dict(profile="bot", source="cron", job="f2a4c6e8b0d1", title="Photo backup size"),
        ),
        (
            "to2-wk-lag",
            "Is the billing consumer keeping up?",
            (
                "sh",
                "kafka-consumer-groups --bootstrap-server kafka:9092 --describe --group billing-events-v2 | tail -1",
                "billing-events-v2 invoices 3 884120 891607 7487 consumer-3-8f2a",
            ),
            "Partition 3 is a few thousand messages behind; the other partitions are current.",
            "7487",
            "Work profile: described the billing consumer group; partition 3 of the invoices topic showed a lag of 7487 messages, only in the kafka tool output.",
            dict(cwd=BILL, profile="work"),
        ),
        (
            "to2-wk-dbt-rows",
            "How many rows did the invoice lines model load last night?",
            (
                "sh",
                "snowsql -q \"select row_count from information_schema.tables where table_name='FCT_INVOICE_LINES'\"",
                "| ROW_COUNT |\n| 12884310  |",
            ),
            "Roughly as expected after the incremental change.",
            "12884310",
            "Work profile: the invoice lines fact table's row count from Snowflake's information schema was 12884310; only the query output shows it.",
            dict(cwd=DATA, profile="work"),
        ),
        (
            "to2-wk-cert",
            "When does the auth gateway's signing cert expire?",
            (
                "sh",
                "openssl x509 -in certs/signing.pem -noout -enddate -subject",
                "notAfter=Aug 30 12:00:00 2026 GMT\nsubject=CN = auth-signing-2026q1",
            ),
            "Still a few months; the rotation reminder will catch it.",
            "auth-signing-2026q1",
            "Work profile: checked the auth gateway's signing certificate; openssl printed an August 30 2026 expiry and the subject CN auth-signing-2026q1, which are only in the output.",
            dict(cwd=AUTH, profile="work"),
        ),
        (
            "to2-wk-go-cover",
            "What's the test coverage of the invoice package?",
            (
                "sh",
                "go test -cover ./internal/invoice/",
                "ok  \tbilling-svc/internal/invoice\t0.388s\tcoverage: 71.4% of statements",
            ),
            "Decent; the PDF path is the main gap.",
            "71.4%",
            "Work profile: measured Go test coverage of the billing service's invoice package; the output said 71.4% of statements.",
            dict(cwd=BILL, profile="work"),
        ),
    ]
    for key, user, tool, reply, fact, summary, kw in rows:
        kw.setdefault("title", user.removeprefix("[cron] ").rstrip(".?")[:50])
        mk(cat, key, "tool_output", summary, [("u", user), tool, ("a", reply)], fact=fact, **kw)


def more_cross_lingual(cat: Catalog) -> None:
    X = "cross_lingual"
    # sessions in German, Spanish, French, Chinese and Japanese (asked about in English)
    rows: list[tuple[str, str, str, str, str, str, dict[str, Any]]] = [
        # key, lang, user, reply, fact, summary, kw
        (
            "xl-de-nebenkosten",
            "de",
            "Die Nebenkostenabrechnung für 2025 ist da: 612 Euro Nachzahlung. Ist das plausibel? Letztes Jahr waren es 140 Euro.",
            "Die Heizkosten sind um 38 % gestiegen, das erklärt den größten Teil. Prüfe aber den Umlageschlüssel für den Hausmeister: der wird nach Wohnfläche verteilt, bei euch steht Personenzahl. Du hast zwölf Monate Zeit für einen Widerspruch.",
            "612 Euro",
            "In German: the 2025 utility bill from the landlord demanded a 612 EUR back payment (140 the year before). Heating explained most of it, but the caretaker costs were split by head count instead of floor area, worth contesting.",
            dict(profile="bot", source="telegram", title="Nebenkostenabrechnung"),
        ),
        (
            "xl-de-kita",
            "de",
            "Erinnere mich: Die Kita hat am 14. und 15. Mai Schließtage wegen Teamfortbildung. Wer kann die Kinder nehmen?",
            "Eingetragen: Kita-Schließtage am 14. und 15. Mai. Oma hat am Donnerstag Zeit, für Freitag frage ich bei der Nachbarsfamilie nach.",
            "Teamfortbildung",
            "In German: the daycare is closed for staff training on May 14 and 15; grandma covers the Thursday and the neighbours were to be asked for Friday.",
            dict(profile="bot", source="telegram", title="Kita Schließtage"),
        ),
        (
            "xl-de-zahnzusatz",
            "de",
            "Lohnt sich eine Zahnzusatzversicherung für 23,80 Euro im Monat? Ich brauche wahrscheinlich eine Krone.",
            "Bei einer absehbaren Krone zahlt die Versicherung meist nicht, weil die Behandlung schon angeraten ist. Für die Zukunft lohnt sich ein Tarif mit 90 % Erstattung erst, wenn du mehrere Jahre drin bleibst; Wartezeit acht Monate.",
            "23,80 Euro",
            "In German: asked whether a supplementary dental insurance at 23.80 EUR a month pays off with a crown coming up. Answer: a treatment already advised is usually excluded, and there is an eight-month waiting period.",
            dict(profile="bot", source="discord", title="Zahnzusatzversicherung"),
        ),
        (
            "xl-de-sauerteigbrot",
            "de",
            "Gib mir ein Rezept für ein Roggenmischbrot mit Sauerteig, 1 kg Teig.",
            "Sauerteig: 150 g Roggenmehl 1150, 150 g Wasser, 15 g Anstellgut, 14 Stunden. Hauptteig: 250 g Weizenmehl 1050, 150 g Roggenmehl, 210 g Wasser, 12 g Salz. 90 Minuten Gare im Korb, bei 250 Grad anbacken, dann 45 Minuten bei 200 Grad.",
            "Weizenmehl 1050",
            "In German: a recipe for a 1 kg rye-wheat sourdough loaf — a 14-hour rye starter, type 1050 wheat flour in the main dough, 90 minutes proofing, baked hot then 45 minutes at 200 C.",
            dict(profile="bot", source="telegram", title="Roggenmischbrot"),
        ),
        (
            "xl-de-muell",
            "de",
            "Wann wird hier der gelbe Sack abgeholt? Der Abfallkalender sagt jetzt was anderes.",
            "Laut neuem Abfallkalender kommt der gelbe Sack ab April alle zwei Wochen dienstags statt mittwochs, der nächste Termin ist der 8. April. Ich habe die Erinnerung auf Montagabend gestellt.",
            "gelbe Sack",
            "In German: the recycling bag pickup changed with the new waste calendar to every other Tuesday from April (next on April 8); the bot set a Monday evening reminder.",
            dict(profile="bot", source="telegram", title="Abfallkalender"),
        ),
        (
            "xl-de-steuer-arbeitszimmer",
            "de",
            "Kann ich mein Arbeitszimmer absetzen, wenn ich drei Tage die Woche im Homeoffice bin?",
            "Seit 2023 gibt es die Jahrespauschale von 1.260 Euro nur, wenn das Arbeitszimmer der Mittelpunkt der Tätigkeit ist. Bei drei Tagen Homeoffice nimmst du besser die Tagespauschale: 6 Euro pro Tag, höchstens 210 Tage.",
            "210 Tage",
            "In German: whether a home office room is deductible with three home-office days a week. Answer: the annual lump sum needs the room to be the centre of work; otherwise the daily allowance of 6 EUR for up to 210 days.",
            dict(source="telegram", title="Arbeitszimmer"),
        ),
        (
            "xl-de-kubernetes-schulung",
            "de",
            "Schreib eine kurze Agenda für eine interne Kubernetes-Schulung, zwei Stunden, für Entwickler ohne Vorwissen.",
            "1. Container vs. Pod (20 Min.)\n2. Deployments und Rollouts (25 Min.)\n3. Services und Ingress (25 Min.)\n4. ConfigMaps und Secrets (20 Min.)\n5. Übung: eigene App deployen (30 Min.)",
            "Übung: eigene App deployen",
            "In German: an agenda for a two-hour internal Kubernetes training for developers new to it, ending with a 30-minute hands-on exercise deploying their own app.",
            dict(cwd=INFRA, title="Kubernetes-Schulung"),
        ),
        (
            "xl-de-wandern-harz",
            "de",
            "Wir wollen im Juni drei Tage im Harz wandern. Welche Route mit Übernachtung?",
            "Der Harzer Hexenstieg von Osterode bis Thale, gekürzt: Tag 1 Osterode–Buntenbock, Tag 2 bis Torfhaus mit Abstecher zum Brocken, Tag 3 durchs Bodetal nach Thale. Übernachtung in Pensionen vorher buchen.",
            "Hexenstieg",
            "In German: a three-day June hiking route in the Harz mountains along the Hexenstieg trail, with a detour to the Brocken and the Bode valley to Thale on the last day.",
            dict(source="telegram", title="Harz Wanderung"),
        ),
        (
            "xl-de-fehler-api",
            "de",
            "Die Versand-API liefert seit heute einen Fehler 422 beim Anlegen von Etiketten für Österreich.",
            "Die API verlangt seit dem Update für AT-Adressen eine Postleitzahl mit genau vier Ziffern und das Feld 'state' muss leer bleiben. Ich habe die Validierung in shop/shipping/address.py angepasst.",
            "genau vier Ziffern",
            "In German: the shipping API started rejecting label creation for Austrian addresses with 422; it now requires exactly four-digit postcodes and an empty state field, and the address validation was adjusted.",
            dict(cwd=SHOP, title="Versand-API 422"),
        ),
        (
            "xl-es-paella",
            "es",
            "¿Cómo hago una paella valenciana auténtica para seis personas?",
            "Para seis: 600 g de arroz bomba, pollo y conejo troceados, judía verde plana, garrofó, tomate rallado, azafrán y pimentón. Sofríe la carne, añade las verduras, agua para cubrir y cuece 20 minutos; luego el arroz sin remover, 18 minutos más, y deja que se haga el socarrat.",
            "garrofó",
            "In Spanish: an authentic Valencian paella for six — bomba rice, chicken and rabbit, flat green beans and garrofó beans, saffron; the rice is not stirred and should form a socarrat.",
            dict(profile="bot", source="telegram", title="Paella valenciana"),
        ),
        (
            "xl-es-viaje-asturias",
            "es",
            "Planea una ruta de cinco días por Asturias en coche en septiembre.",
            "Día 1 Oviedo, día 2 Cudillero y Luarca, día 3 Picos de Europa y los Lagos de Covadonga (reserva el autobús, en temporada se cierra la carretera), día 4 Cangas de Onís y la ruta del Cares, día 5 Gijón y Llanes.",
            "Lagos de Covadonga",
            "In Spanish: a five-day September road trip through Asturias — Oviedo, coastal villages, the Covadonga lakes (by bus), the Cares gorge walk and Gijón.",
            dict(source="telegram", title="Ruta por Asturias"),
        ),
        (
            "xl-es-contrato-alquiler",
            "es",
            "El casero quiere subir el alquiler un 8 % al renovar. ¿Puede hacerlo?",
            "Con la ley de vivienda, en contratos vigentes la subida anual está limitada al índice de referencia, que para 2025 es del 2,2 %. Una subida del 8 % solo sería posible con un contrato nuevo; responde por escrito citando el índice.",
            "2,2 %",
            "In Spanish: the landlord wanted an 8% rent increase on renewal; under the housing law the annual increase for existing contracts is capped by the reference index (2.2% for 2025).",
            dict(source="telegram", title="Subida del alquiler"),
        ),
        (
            "xl-es-redis-cluster",
            "es",
            "Los pedidos se quedan en cola cuando cae un nodo de Redis. ¿Qué hacemos?",
            "Usa Redis Sentinel con tres centinelas y quórum 2; Celery y Django se conectan a través del master name 'shop-redis'. Así el failover tarda unos diez segundos y no hay que tocar la configuración.",
            "quórum 2",
            "In Spanish: orders got stuck when a Redis node failed; the advice was Redis Sentinel with three sentinels and quorum 2, with Celery and Django connecting via the master name.",
            dict(cwd=SHOP, title="Redis caído"),
        ),
        (
            "xl-fr-croissants",
            "fr",
            "Donne-moi un planning pour faire des croissants maison pour dimanche matin.",
            "Samedi 10 h : détrempe et repos au frais. 14 h : tourage avec 250 g de beurre sec, trois tours simples, 30 minutes de froid entre chaque. 20 h : façonnage, pousse lente au frigo la nuit. Dimanche 7 h : 2 h de pousse à 26 °C, dorure, cuisson 17 minutes à 190 °C.",
            "trois tours simples",
            "In French: a weekend schedule for homemade croissants — dough on Saturday morning, laminating with 250 g butter in three single folds, shaping in the evening, overnight cold proof and baking Sunday at 190 C.",
            dict(profile="bot", source="telegram", title="Croissants maison"),
        ),
        (
            "xl-fr-vol-annule",
            "fr",
            "Mon vol Lyon–Lisbonne a été annulé la veille. À quoi ai-je droit ?",
            "Selon le règlement européen 261, pour un vol de moins de 1 500 km annulé moins de 7 jours avant, tu as droit à 250 € d'indemnisation en plus du remboursement ou du réacheminement, sauf circonstances extraordinaires.",
            "règlement européen 261",
            "In French: a Lyon-Lisbon flight cancelled the day before; under EU regulation 261 that means 250 EUR compensation plus refund or rebooking unless extraordinary circumstances apply.",
            dict(profile="bot", source="discord", title="Vol annulé"),
        ),
        (
            "xl-fr-cv",
            "fr",
            "Relis mon CV en français pour un poste de développeur backend à Montréal.",
            "Trois remarques : mets la section compétences avant l'expérience, remplace « en charge de » par des verbes d'action avec des résultats chiffrés, et ajoute ton niveau d'anglais, les recruteurs montréalais le demandent toujours.",
            "recruteurs montréalais",
            "In French: feedback on a CV for a backend developer job in Montreal — skills before experience, action verbs with numbers, and state the English level because Montreal recruiters ask.",
            dict(cwd=NOTES, title="CV Montréal"),
        ),
        (
            "xl-fr-certificat",
            "fr",
            "Le certificat du blog expire dans trois jours et le renouvellement échoue.",
            "Le défi HTTP-01 échoue parce que la redirection vers www renvoie une 301 vers un autre hôte sans certificat. J'ai ajouté www au certificat et le renouvellement passe.",
            "défi HTTP-01",
            "In French: the blog's certificate renewal failed three days before expiry because the HTTP-01 challenge followed a redirect to www, which the certificate did not cover; www was added.",
            dict(cwd=BLOG, title="Renouvellement du certificat"),
        ),
        (
            "xl-zh-bot-mortgage",
            "zh",
            "帮我算一下房贷：贷款 120 万，30 年，利率 3.1%，等额本息每月还多少？",
            "等额本息每月还款约 5124 元，总利息大约 64.5 万。如果改成 25 年，每月约 5754 元，总利息能少 10 万左右。",
            "5124",
            "In Chinese: a mortgage calculation for a 1.2 million loan over 30 years at 3.1% with equal monthly payments — about 5124 a month; 25 years would raise the payment but save about 100k interest.",
            dict(profile="bot", source="telegram", title="房贷计算"),
        ),
        (
            "xl-ja-bot-onsen",
            "ja",
            "箱根で日帰り温泉に行きたいです。子供連れでおすすめはありますか？",
            "箱根湯寮がおすすめです。貸切個室露天風呂があり、子供料金は小学生まで半額です。小田原駅から無料送迎バスが出ています。",
            "箱根湯寮",
            "In Japanese: a day-trip hot spring in Hakone suitable for children — Hakone Yuryo, with private open-air baths, half price for kids and a free shuttle from Odawara.",
            dict(profile="bot", source="discord", title="箱根の日帰り温泉"),
        ),
        (
            "xl-zh-nginx-gzip",
            "zh",
            "网站的 JS 文件很大，加载很慢，帮我检查一下压缩有没有开。",
            "gzip 没有打开。我在 nginx 配置里加了 gzip on 和 gzip_types，JS 文件从 1.2MB 变成了 310KB。",
            "310KB",
            "In Chinese: the site's JavaScript loaded slowly because nginx had no gzip; enabling gzip for the right types shrank the JS from 1.2 MB to 310 KB.",
            dict(cwd=INFRA, title="开启压缩"),
        ),
        (
            "xl-ja-git-rebase",
            "ja",
            "間違えて main に直接コミットしてしまいました。ブランチに移す方法は？",
            "まだ push していなければ、git branch fix/typo で今の状態をブランチにして、git reset --hard origin/main で main を戻します。その後 fix/typo をチェックアウトしてください。",
            "fix/typo",
            "In Japanese: moving an accidental commit off main onto a new branch before pushing — create the branch, hard-reset main to origin, check out the branch.",
            dict(cwd=SHOP, title="main へのコミット"),
        ),
    ]
    for key, lang, user, reply, fact, summary, kw in rows:
        mk(cat, key, X, summary, [("u", user), ("a", reply)], fact=fact, lang=lang, **kw)

    # English sessions that will be asked about in Chinese or German
    rows2: list[tuple[str, str, list[Turn], dict[str, Any]]] = [
        (
            "xl-en-hsts-preload",
            "Asked in Chinese or German. The shop domain was submitted to the HSTS preload list after adding includeSubDomains and preload to the header with a two-year max-age.",
            [
                ("u", "Get the shop onto the browsers' HSTS preload list."),
                (
                    "p",
                    "ansible/roles/nginx/templates/hsts.conf.j2",
                    'add_header Strict-Transport-Security "max-age=31536000" always;',
                    'add_header Strict-Transport-Security "max-age=63072000; includeSubDomains; preload" always;',
                ),
                (
                    "a",
                    "The header now has a two-year max-age with includeSubDomains and preload; submitted shop.example.com at hstspreload.org, inclusion takes a few weeks.",
                ),
            ],
            dict(cwd=INFRA, title="HSTS preload", fact="hstspreload.org"),
        ),
        (
            "xl-en-car-tyres",
            "Asked in Chinese or German. Switching to winter tyres: the bot booked the tyre change at the garage for October 24 and noted the tread depth rule of 4 mm.",
            [
                ("u", "Book the winter tyre change and tell me when to replace them."),
                (
                    "a",
                    "Booked the tyre change at the garage on Hauptstraße for October 24 at 8:30. Replace winter tyres below 4 mm tread; yours had 5.5 mm last spring.",
                ),
            ],
            dict(profile="bot", source="telegram", title="Winter tyres", fact="5.5 mm"),
        ),
        (
            "xl-en-vaccination",
            "Asked in Chinese or German. The family's vaccination record check: the daughter's MMR booster is due before school starts, and the tetanus boosters of both parents are due in 2027.",
            [
                ("u", "Check the vaccination records I photographed and tell me what's due."),
                (
                    "a",
                    "Your daughter needs the second MMR dose before school starts in August. Both of your tetanus boosters were in 2017, so they're due in 2027. Everything else is current.",
                ),
            ],
            dict(profile="bot", source="telegram", title="Vaccinations", fact="second MMR dose"),
        ),
        (
            "xl-en-solar",
            "Asked in Chinese or German. Sizing a balcony solar kit: two 430 W panels with an 800 W inverter were recommended, registered with the grid operator.",
            [
                ("u", "Is a balcony solar kit worth it for our south-facing balcony?"),
                (
                    "a",
                    "Yes: two 430 W panels with an 800 W micro-inverter make about 750 kWh a year on a south balcony, paying back in roughly four years. Register it in the Marktstammdatenregister; no electrician needed.",
                ),
            ],
            dict(profile="bot", source="discord", title="Balcony solar", fact="430 W panels"),
        ),
        (
            "xl-en-django-i18n",
            "Asked in Chinese or German. The webshop got translatable URL prefixes via i18n_patterns so /de/ and /en/ pages exist, with the locale middleware enabled.",
            [
                ("u", "The shop needs /de/ and /en/ URLs for the product pages."),
                (
                    "p",
                    "shop/urls.py",
                    "urlpatterns = [",
                    "urlpatterns = i18n_patterns(\n    path('', include('shop.catalog.urls')),\n    prefix_default_language=True,\n) + [",
                ),
                (
                    "a",
                    "Product pages are served under /de/ and /en/ via i18n_patterns, and LocaleMiddleware picks the language from the prefix.",
                ),
            ],
            dict(cwd=SHOP, title="Language prefixes", fact="prefix_default_language=True"),
        ),
        (
            "xl-en-mlflow",
            "Asked in Chinese or German. Experiment tracking moved to a self-hosted MLflow server with a Postgres backend and artifacts in S3; training runs log params and metrics there.",
            [
                ("u", "Set up MLflow so we stop comparing runs in spreadsheets."),
                (
                    "sh",
                    "mlflow server --backend-store-uri postgresql://mlflow@db/mlflow --artifacts-destination s3://ml-artifacts-dev --host 0.0.0.0 --port 5500",
                    "[INFO] Listening at: http://0.0.0.0:5500",
                ),
                (
                    "a",
                    "MLflow runs on port 5500 with Postgres for runs and S3 for artifacts; train.py now logs params, metrics and the best checkpoint.",
                ),
            ],
            dict(cwd=ML, title="MLflow tracking", fact="s3://ml-artifacts-dev"),
        ),
        (
            "xl-en-push-notif",
            "Asked in Chinese or German. The app's push notifications on Android 13+ need the runtime POST_NOTIFICATIONS permission, which is now requested after the first order.",
            [
                ("u", "New Android users never get push notifications."),
                (
                    "p",
                    "android/app/src/main/AndroidManifest.xml",
                    '<uses-permission android:name="android.permission.INTERNET" />',
                    '<uses-permission android:name="android.permission.INTERNET" />\n<uses-permission android:name="android.permission.POST_NOTIFICATIONS" />',
                ),
                (
                    "a",
                    "Android 13 needs the notification permission at runtime; it's declared now and the app asks right after the first order, when people see the point.",
                ),
            ],
            dict(cwd=APP, title="Android notification permission", fact="POST_NOTIFICATIONS"),
        ),
        (
            "xl-en-blog-search",
            "Asked in Chinese or German. Client-side search was added to the blog with Pagefind, indexing the built site after hugo runs.",
            [
                ("u", "Add search to the blog without a server."),
                (
                    "sh",
                    "hugo --minify && npx pagefind --site public",
                    "Running Pagefind v1.1.0\nIndexed 87 pages\nIndexed 9120 words",
                ),
                (
                    "a",
                    "Pagefind indexes the built site and ships a small search UI; it runs after hugo in the deploy workflow.",
                ),
            ],
            dict(cwd=BLOG, title="Blog search", fact="Pagefind"),
        ),
        (
            "xl-en-password-manager",
            "Asked in Chinese or German. The family moved to a shared Bitwarden organisation with collections for household, kids and finances; the old spreadsheet of passwords was deleted.",
            [
                ("u", "We keep passwords in a spreadsheet. Set us up with something proper for the family."),
                (
                    "a",
                    "Bitwarden's family plan: one organisation with three collections (household, kids, finances), each of you with your own vault for personal logins. Import the spreadsheet as CSV, then delete it and empty the trash.",
                ),
            ],
            dict(profile="bot", source="telegram", title="Family passwords", fact="three collections"),
        ),
        (
            "xl-en-wk-incident",
            "Asked in Chinese or German. Work profile: postmortem of a billing outage caused by an expired database certificate; action items include cert expiry alerts 30 days ahead.",
            [
                ("u", "Write the postmortem for Tuesday's billing outage."),
                (
                    "a",
                    "Summary: billing-svc couldn't reach Postgres for 47 minutes because the database server certificate expired. Action items: alert 30 days before any certificate expires, move DB certs to cert-manager, add a synthetic invoice check.",
                ),
            ],
            dict(cwd=BILL, profile="work", title="Billing outage postmortem", fact="47 minutes"),
        ),
        (
            "xl-en-wk-data-contract",
            "Asked in Chinese or German. Work profile: a data contract for the payments events topic was agreed, with schema versioning in the registry and a 90-day deprecation period for fields.",
            [
                ("u", "Draft the data contract between payments and the data platform."),
                (
                    "a",
                    "Contract: payments events are Avro in the schema registry with BACKWARD compatibility; removing a field needs a 90-day deprecation notice; the data team owns freshness alerts, payments owns schema changes.",
                ),
            ],
            dict(cwd=DATA, profile="work", title="Payments data contract", fact="90-day deprecation"),
        ),
        (
            "xl-en-kids-allowance",
            "Asked in Chinese or German. Pocket money for the kids was set at 3 EUR a week for the younger and 6 EUR for the older one, paid on Saturdays, with the bot keeping the ledger.",
            [
                ("u", "Let's finally do pocket money properly. How much, and can you keep track?"),
                (
                    "a",
                    "3 EUR a week for the younger one, 6 EUR for the older, paid every Saturday. I'll keep a ledger and remind you on Saturday mornings; purchases they report get subtracted.",
                ),
            ],
            dict(profile="bot", source="telegram", title="Pocket money", fact="6 EUR for the older"),
        ),
    ]
    for key, summary, turns, kw in rows2:
        fact = kw.pop("fact")
        mk(cat, key, X, summary, turns, fact=fact, **kw)


def more_updates(cat: Catalog) -> None:
    # key, [(user, assistant) per session, oldest first], [summary per session], fact of the newest, kw
    rows: list[tuple[str, list[tuple[str, str]], list[str], str, dict[str, Any]]] = [
        (
            "upd2-redis-host",
            [
                ("Where does the shop's Redis run?", "Redis runs on cache-01 (10.0.5.11), port 6379."),
                (
                    "Redis was migrated, where is it now?",
                    "Redis moved to ElastiCache: shop-cache.x7k2pq.euc1.cache.amazonaws.com, port 6379; cache-01 is gone.",
                ),
            ],
            [
                "Noted that the shop's Redis ran on the cache-01 host.",
                "The shop's Redis was migrated from cache-01 to an ElastiCache endpoint.",
            ],
            "shop-cache.x7k2pq",
            dict(cwd=SHOP),
        ),
        (
            "upd2-sentry-dsn",
            [
                (
                    "Which Sentry project does the app report to?",
                    "The app reports to the Sentry project mobile-app-legacy under the old org.",
                ),
                (
                    "We moved Sentry orgs. Which project now?",
                    "The app now reports to the Sentry project shop-mobile in the new org; the legacy project is read-only.",
                ),
            ],
            [
                "The mobile app reported crashes to a legacy Sentry project.",
                "After a Sentry org move the app reports to a new project, shop-mobile; the legacy one is read-only.",
            ],
            "shop-mobile",
            dict(cwd=APP),
        ),
        (
            "upd2-train-gpu",
            [
                (
                    "Which machine do we train on?",
                    "Training runs on the workstation's RTX A5000 under the desk.",
                ),
                (
                    "Where do we train now?",
                    "Training moved to the rented H100 box gpu-h100-02 at the lab; the desk workstation is only for debugging.",
                ),
            ],
            [
                "Model training ran on the local workstation GPU.",
                "Model training moved to a rented H100 machine, gpu-h100-02; the workstation is now for debugging only.",
            ],
            "gpu-h100-02",
            dict(cwd=ML),
        ),
        (
            "upd2-blog-analytics",
            [
                (
                    "What analytics does the blog use?",
                    "The blog uses Google Analytics with the anonymize_ip flag.",
                ),
                (
                    "Swap out the blog's analytics.",
                    "The blog's analytics is now Plausible, self-hosted at stats.dev-blog.net; Google Analytics is removed.",
                ),
            ],
            [
                "The blog used Google Analytics with IP anonymisation.",
                "The blog's analytics were replaced with a self-hosted Plausible instance; Google Analytics was removed.",
            ],
            "stats.dev-blog.net",
            dict(cwd=BLOG),
        ),
        (
            "upd2-vat-rate",
            [
                (
                    "Which reduced VAT rate applies to books in the shop?",
                    "Books use the reduced VAT rate of 7 percent.",
                ),
                (
                    "The books category moved to another tax class, what's the VAT rate for books now?",
                    "Books now use the VAT rate of 5.5 percent for the French store; the German store keeps 7 percent.",
                ),
            ],
            [
                "Books in the shop used a 7 percent reduced VAT rate.",
                "For the French store, books now use a 5.5 percent VAT rate while the German store keeps 7.",
            ],
            "5.5 percent",
            dict(cwd=SHOP),
        ),
        (
            "upd2-editor-font",
            [
                ("What font do I use in the terminal?", "Your terminal font is JetBrains Mono at size 11."),
                (
                    "I changed fonts again, note it.",
                    "Your terminal font is now Berkeley Mono at 12.5; JetBrains Mono is only the fallback.",
                ),
            ],
            [
                "The terminal font was JetBrains Mono at 11.",
                "The terminal font became Berkeley Mono at 12.5, with JetBrains Mono as fallback.",
            ],
            "Berkeley Mono",
            dict(cwd=DOT),
        ),
        (
            "upd2-dns-provider",
            [
                (
                    "Who hosts the DNS for example.com?",
                    "DNS for the shop domain is at Gandi, managed by hand.",
                ),
                (
                    "DNS got migrated, who hosts it?",
                    "DNS for the shop domain moved to Route 53, managed by Terraform in terraform/dns.tf.",
                ),
                (
                    "Where is the DNS now after the cost review?",
                    "DNS for the shop domain is now at Cloudflare, still managed by Terraform with the cloudflare provider; Route 53 zones are deleted.",
                ),
            ],
            [
                "The shop domain's DNS was at Gandi and edited by hand.",
                "The shop domain's DNS moved to Route 53 under Terraform.",
                "After a cost review the shop domain's DNS moved again, to Cloudflare (still via Terraform); the Route 53 zones were removed.",
            ],
            "cloudflare provider",
            dict(cwd=INFRA),
        ),
        (
            "upd2-wk-standup",
            [
                (
                    "When is the billing standup?",
                    "The billing team's standup is at 9:30 every weekday in the Kiwi room.",
                ),
                (
                    "The standup moved, when is it now?",
                    "The billing standup is now at 10:15, async on Fridays, in the Mango room.",
                ),
            ],
            [
                "Work profile: the billing team standup was at 9:30 on weekdays.",
                "Work profile: the billing standup moved to 10:15 (async on Fridays), in another room.",
            ],
            "Mango room",
            dict(profile="work"),
        ),
        (
            "upd2-wk-kafka-broker",
            [
                (
                    "What's the Kafka bootstrap address for billing?",
                    "Billing uses kafka-1.int:9092 as the bootstrap server.",
                ),
                (
                    "Kafka was migrated to MSK, what's the bootstrap now?",
                    "Billing's bootstrap servers are now b-1.billing-msk.kafka.eu-central-1.amazonaws.com:9094 with TLS.",
                ),
            ],
            [
                "Work profile: the billing service's Kafka bootstrap server was kafka-1.int on 9092.",
                "Work profile: after the MSK migration billing connects to an MSK bootstrap on port 9094 with TLS.",
            ],
            "billing-msk",
            dict(cwd=BILL, profile="work"),
        ),
        (
            "upd2-wk-token-ttl",
            [
                (
                    "What's the refresh token lifetime in the gateway config?",
                    "The gateway's refresh token lifetime is 30 days.",
                ),
                (
                    "Security asked us to shorten the refresh token lifetime. What is it now?",
                    "The gateway's refresh token lifetime is now 14 days, with rotation on every use.",
                ),
            ],
            [
                "Work profile: the auth gateway's refresh tokens lived 30 days.",
                "Work profile: after a security review the gateway's refresh token lifetime dropped to 14 days with rotation on use.",
            ],
            "14 days, with rotation",
            dict(cwd=AUTH, profile="work"),
        ),
        (
            "upd2-wk-airflow-version",
            [
                ("Which Airflow version is the data platform on?", "The data platform runs Airflow 2.7.3."),
                (
                    "We upgraded Airflow, which version now?",
                    "The data platform runs Airflow 2.10.4 after the upgrade; the DAGs needed no changes.",
                ),
            ],
            [
                "Work profile: the data platform ran Airflow 2.7.3.",
                "Work profile: the data platform was upgraded to Airflow 2.10.4 without DAG changes.",
            ],
            "2.10.4",
            dict(cwd=DATA, profile="work"),
        ),
        (
            "upd2-wk-manager",
            [
                (
                    "Who approves my expenses?",
                    "Your expenses are approved by Martina Keller, the billing engineering manager.",
                ),
                (
                    "After the reorg, who approves my expenses?",
                    "After the reorg your expenses are approved by Tobias Brandt, head of payments engineering.",
                ),
            ],
            [
                "Work profile: expenses were approved by the billing engineering manager, Martina Keller.",
                "Work profile: after a reorg expense approval moved to Tobias Brandt, head of payments engineering.",
            ],
            "Tobias Brandt",
            dict(profile="work"),
        ),
        (
            "upd2-wk-warehouse-size",
            [
                ("What size is the LOADING_WH warehouse?", "LOADING_WH is size SMALL."),
                (
                    "We resized LOADING_WH, what size is it now?",
                    "LOADING_WH is size LARGE now, for the backfill month; it goes back down in June.",
                ),
            ],
            [
                "Work profile: the Snowflake loading warehouse was size SMALL.",
                "Work profile: the Snowflake loading warehouse was resized to LARGE for the backfill month.",
            ],
            "size LARGE",
            dict(cwd=DATA, profile="work"),
        ),
        (
            "upd2-bot-piano",
            [
                (
                    "When is Mia's piano lesson?",
                    "Mia's piano lesson is on Wednesdays at 16:00 with Frau Lindner.",
                ),
                (
                    "The piano teacher changed the schedule. When is Mia's lesson now?",
                    "Mia's piano lesson is now on Thursdays at 17:15, same teacher.",
                ),
            ],
            [
                "Bot profile: Mia's piano lesson was on Wednesdays at 16:00.",
                "Bot profile: Mia's piano lesson moved to Thursdays at 17:15 with the same teacher.",
            ],
            "17:15",
            dict(profile="bot", source="telegram"),
        ),
        (
            "upd2-bot-internet-price",
            [
                ("What do we pay for internet?", "The internet contract costs 39.99 EUR a month, fiber 250."),
                (
                    "The provider raised the price. What do we pay for internet now?",
                    "The internet contract now costs 44.99 EUR a month; you can cancel within two months of the increase.",
                ),
            ],
            [
                "Bot profile: the home internet contract cost 39.99 EUR a month.",
                "Bot profile: the internet provider raised the price to 44.99 EUR a month, giving a two-month cancellation window.",
            ],
            "44.99 EUR",
            dict(profile="bot", source="telegram"),
        ),
        (
            "upd2-bot-ha-host",
            [
                (
                    "Where does Home Assistant run?",
                    "Home Assistant runs on the Raspberry Pi 4 in the hallway cupboard, ha.lan:8123.",
                ),
                (
                    "I moved Home Assistant. Where does it run now?",
                    "Home Assistant now runs as a VM on the mini PC (Proxmox host pve-01), still reachable at ha.lan:8123; the Pi is spare.",
                ),
            ],
            [
                "Bot profile: Home Assistant ran on a Raspberry Pi 4 in the hallway cupboard.",
                "Bot profile: Home Assistant was moved to a VM on the Proxmox mini PC pve-01; the address stayed the same.",
            ],
            "pve-01",
            dict(profile="bot", source="discord"),
        ),
        (
            "upd2-bot-jellyfin-port",
            [
                ("Which port is Jellyfin on?", "Jellyfin listens on port 8096 on the home server."),
                (
                    "Jellyfin is behind the proxy now, which port do I use?",
                    "Use https://media.home.arpa on port 443 through Caddy; direct port 8096 is closed from the LAN.",
                ),
            ],
            [
                "Bot profile: Jellyfin listened on port 8096 of the home server.",
                "Bot profile: Jellyfin now sits behind Caddy at media.home.arpa on 443, and the direct port is closed.",
            ],
            "media.home.arpa",
            dict(profile="bot", source="discord"),
        ),
        (
            "upd2-bot-flight",
            [
                (
                    "Note our flight to Porto: when do we leave?",
                    "Flight to Porto: departure June 28 at 06:40 from BER, TAP TP 537.",
                ),
                (
                    "TAP changed the flight to Porto. When do we leave now?",
                    "New flight to Porto: departure June 28 at 13:05, TAP TP 541; seats stay the same.",
                ),
            ],
            [
                "Bot profile: flight to Porto noted for June 28 at 06:40 with TAP.",
                "Bot profile: TAP rescheduled the Porto flight to 13:05 the same day, flight TP 541.",
            ],
            "TP 541",
            dict(profile="bot", source="telegram"),
        ),
        (
            "upd2-bot-backup-time",
            [
                ("When does the nightly backup run?", "The nightly backup to B2 runs at 01:30."),
                (
                    "Backups collided with the Jellyfin scan, when does the nightly backup run now?",
                    "The nightly backup to B2 now runs at 04:15, after the Jellyfin library scan.",
                ),
            ],
            [
                "Bot profile: the nightly B2 backup ran at 01:30.",
                "Bot profile: the nightly backup was moved to 04:15 to avoid the Jellyfin scan.",
            ],
            "04:15",
            dict(profile="bot", source="cron", job="c3e5a7b9d1f2", title="Backup schedule"),
        ),
        (
            "upd2-bot-babysitter",
            [
                ("What's the babysitter's rate?", "The babysitter, Lea, charges 14 EUR an hour."),
                (
                    "Lea raised her rate, what's the babysitter's rate now?",
                    "Lea now charges 16 EUR an hour, 20 after midnight.",
                ),
            ],
            [
                "Bot profile: the babysitter Lea charged 14 EUR an hour.",
                "Bot profile: the babysitter raised her rate to 16 EUR an hour, 20 after midnight.",
            ],
            "20 after midnight",
            dict(profile="bot", source="telegram"),
        ),
        (
            "upd2-bot-dinner-party",
            [
                (
                    "The dinner party with the Hoffmanns: when is it?",
                    "Dinner with the Hoffmanns is on Saturday March 21 at 19:00 at our place.",
                ),
                (
                    "The Hoffmanns can't make it, the dinner party is moved. When is it?",
                    "Dinner with the Hoffmanns is moved to Saturday April 4 at 19:30, still at our place.",
                ),
            ],
            [
                "Bot profile: dinner with the Hoffmanns was set for March 21 at 19:00.",
                "Bot profile: the Hoffmann dinner party moved to April 4 at 19:30.",
            ],
            "April 4",
            dict(profile="bot", source="telegram"),
        ),
    ]
    for key, turns, summaries, fact, kw in rows:
        n = len(turns)
        sessions: list[Sess] = []
        for i, ((user, reply), summary) in enumerate(zip(turns, summaries, strict=True)):
            day = 12 + (len(cat.sessions) % 23) + i * (140 // n)
            last = i == n - 1
            kw2 = dict(kw)
            if kw2.get("source") == "cron":
                user = "[cron] " + user
            s = mk(
                cat,
                f"{key}-{i + 1}",
                "update",
                summary,
                [("u", user), ("a", reply)],
                day=day,
                fact=fact if last else None,
                supersedes=list(sessions),
                **kw2,
            )
            sessions.append(s)


def more_profile(cat: Catalog) -> None:
    # facts only in the bot (and work) profiles: key, user, reply, fact, summary, kw
    rows: list[tuple[str, str, str, str, str, dict[str, Any]]] = [
        (
            "bot-insurance-renewal",
            "When does the household contents insurance renew and what does it cost?",
            "Your contents insurance with HUK renews on 1 September; the premium is 118.40 EUR a year, policy number HR-4471902.",
            "HR-4471902",
            "Bot profile: the household contents insurance renews on September 1 at 118.40 EUR a year; the policy number was noted.",
            dict(source="telegram"),
        ),
        (
            "bot-wifi-guest",
            "Set up a guest Wi-Fi for the visitors this weekend.",
            "Guest network 'Gartenhaus-Gast' is on, isolated from the LAN, password expires Monday 08:00. I'll send the QR code to the family chat.",
            "Gartenhaus-Gast",
            "Bot profile: a guest Wi-Fi isolated from the home LAN was created for weekend visitors, expiring Monday morning.",
            dict(source="discord"),
        ),
        (
            "bot-oil-change",
            "The car's service light is on. When was the last oil change?",
            "Last oil change was at 61,200 km in October; the car is at 74,850 km, so it's due. The garage has a slot on Tuesday at 7:45.",
            "74,850 km",
            "Bot profile: the car's service light; the last oil change had been at 61,200 km and the odometer read 74,850 km, so a garage slot was suggested.",
            dict(source="telegram"),
        ),
        (
            "bot-recipe-lasagne",
            "Scale the lasagne recipe for 10 people.",
            "For 10: 750 g minced beef, 2 tins tomatoes (800 g), 15 sheets, 1.2 l béchamel, 250 g parmesan. Use two trays and bake 45 minutes at 180 C.",
            "1.2 l béchamel",
            "Bot profile: the family lasagne recipe scaled to ten people — two trays, 750 g minced beef and 1.2 litres of béchamel.",
            dict(source="telegram"),
        ),
        (
            "bot-netflix-cancel",
            "Which streaming subscriptions are we paying for?",
            "Netflix 13.99, Disney+ 8.99 and Spotify Family 17.99 a month. Disney+ hasn't been opened since January; cancel it before the 15th to avoid the next charge.",
            "Disney+ 8.99",
            "Bot profile: a review of streaming subscriptions found Disney+ unused since January; cancel before the 15th.",
            dict(source="discord"),
        ),
        (
            "bot-library-books",
            "Which library books are due?",
            "Three books from the city library are due on May 6: 'Piranesi', 'The Overstory' and a kids' book about volcanoes. You can renew twice online.",
            "The Overstory",
            "Bot profile: three city library books, including a kids' volcano book, were due on May 6 and could be renewed online.",
            dict(source="telegram"),
        ),
        (
            "bot-reading-notes-1",
            "Reading note for 'Four Thousand Weeks': save my main takeaway.",
            "Saved: the takeaway from 'Four Thousand Weeks' is to choose deliberately what to neglect, because there will always be too much to do.",
            "Four Thousand Weeks",
            "Bot profile: a reading note on a book about time management — the takeaway was to consciously pick what to neglect.",
            dict(source="telegram"),
        ),
        (
            "bot-reading-notes-2",
            "Add a reading note for 'The Dispossessed'.",
            "Noted for 'The Dispossessed': Le Guin shows both worlds' freedoms as partial; Shevek's ideas need both societies. Favourite chapter: the prison game.",
            "The Dispossessed",
            "Bot profile: a reading note on Ursula Le Guin's novel about two worlds, with the prison-game chapter as the favourite.",
            dict(source="telegram"),
        ),
        (
            "bot-ha-heating",
            "Lower the heating at night, the bedroom is too warm.",
            "The bedroom thermostat now drops to 17.5 °C from 22:30 to 6:00 and returns to 20 °C in the morning.",
            "17.5 °C",
            "Bot profile: the Home Assistant heating schedule lowers the bedroom to 17.5 degrees overnight.",
            dict(source="telegram"),
        ),
        (
            "bot-ha-doorbell",
            "Make the doorbell announce on the kitchen speaker.",
            "When the doorbell rings, the kitchen speaker now says 'Someone is at the door' and a snapshot goes to both phones, except between 21:00 and 7:00.",
            "Someone is at the door",
            "Bot profile: the smart doorbell now announces visitors on the kitchen speaker and sends a snapshot, with quiet hours at night.",
            dict(source="discord"),
        ),
        (
            "bot-pharmacy",
            "Remind me to pick up Leo's prescription.",
            "Reminder set for tomorrow 17:30: pick up the amoxicillin prescription for Leo at the pharmacy on the corner; it's ready from noon.",
            "amoxicillin",
            "Bot profile: a reminder to pick up Leo's antibiotic prescription at the corner pharmacy the next evening.",
            dict(source="telegram"),
        ),
        (
            "bot-school-trip",
            "The school trip form: what do we need to pay and by when?",
            "The class trip to the Baltic Sea costs 186 EUR, due to the class account by March 10; the consent form must be signed by both parents.",
            "186 EUR",
            "Bot profile: the class trip to the Baltic Sea costs 186 EUR, payable by March 10, and needs both parents' signatures.",
            dict(source="telegram"),
        ),
        (
            "bot-birthday-gift",
            "Ideas for Anna's 40th birthday gift, budget around 150 EUR.",
            "Three ideas in budget: a pottery workshop for two (140 EUR), a bottle of 2015 Barolo with a cheese board, or a framed print of the map of your first trip. The pottery workshop fits best with what she said in December.",
            "pottery workshop",
            "Bot profile: gift ideas for Anna's 40th at about 150 EUR; the pottery workshop for two was the favourite.",
            dict(source="discord"),
        ),
        (
            "bot-savings-goal",
            "How are we doing on the holiday savings?",
            "The holiday savings pot has 2,340 EUR of the 3,000 EUR goal; at 220 EUR a month you'll reach it in early July.",
            "2,340 EUR",
            "Bot profile: the holiday savings pot stood at 2,340 of 3,000 EUR, on track for early July at 220 a month.",
            dict(source="telegram"),
        ),
        (
            "bot-electricity-reading",
            "[cron] Monthly electricity meter reminder.",
            "Meter reading for April logged: 48,213 kWh; consumption this month 287 kWh, 9% below last April.",
            "48,213 kWh",
            "Bot profile cron: the monthly electricity meter reading was logged with consumption 9% below last year's April.",
            dict(source="cron", job="d4f6b8a0c2e3", title="Electricity meter"),
        ),
        (
            "bot-calendar-weekly",
            "[cron] Send the family calendar for next week.",
            "Next week: Monday parents' evening 19:00; Wednesday swimming 16:30; Friday Oma's birthday lunch 12:30 at Ristorante Da Gino; Saturday recycling centre run.",
            "Da Gino",
            "Bot profile cron: next week's family calendar, including a parents' evening, swimming and grandma's birthday lunch at an Italian restaurant on Friday.",
            dict(source="cron", job="e5a7c9b1d3f4", title="Family calendar"),
        ),
        (
            "bot-nas-disk",
            "The NAS beeped this morning.",
            "One disk in the NAS's RAID 1 reports 8 reallocated sectors (WD Red, bay 2). The array is still healthy; order a replacement and swap it this week.",
            "bay 2",
            "Bot profile: the NAS beeped because one RAID 1 disk showed reallocated sectors; a replacement was recommended while the array was still healthy.",
            dict(source="discord"),
        ),
        (
            "bot-travel-packing",
            "Packing list for the Porto trip with the kids.",
            "Porto in late June: light layers and a windbreaker for the Atlantic breeze, swimwear, sunscreen 50, the kids' travel games, the EU health insurance cards, and an adapter isn't needed.",
            "windbreaker",
            "Bot profile: a packing list for a family trip to Porto in late June, stressing a windbreaker and the EU health insurance cards.",
            dict(source="telegram"),
        ),
        (
            "bot-tax-refund",
            "Did the tax refund arrive?",
            "Yes, the tax office transferred 1,482.16 EUR on March 27 for 2024; that matches the assessment notice.",
            "1,482.16",
            "Bot profile: the 2024 income tax refund arrived on March 27 and matched the assessment notice.",
            dict(source="telegram"),
        ),
        (
            "bot-plant-sitter",
            "We're away for two weeks. Instructions for the neighbour watering the plants?",
            "For Frau Yilmaz: water the olive tree on the balcony every two days, the orchids once with a shot glass, and leave the cactus alone. Key is in the blue box.",
            "blue box",
            "Bot profile: instructions for the neighbour watering the plants during a two-week absence, including where the key is.",
            dict(source="discord"),
        ),
        (
            "bot-car-insurance",
            "Compare the two car insurance offers.",
            "Offer A 412 EUR with 300 EUR partial-cover deductible, offer B 389 EUR but 500 EUR deductible and no workshop choice. Take A: one glass claim already makes up the difference.",
            "offer B 389 EUR",
            "Bot profile: compared two car insurance quotes and recommended the slightly pricier one with the lower deductible.",
            dict(source="telegram"),
        ),
        (
            "bot-jellyfin-user",
            "Add a Jellyfin account for Oma with only the family videos.",
            "Created the Jellyfin user 'oma' with access to the 'Familienvideos' library only and a PIN login on the TV.",
            "Familienvideos",
            "Bot profile: a Jellyfin account for grandma was created with access limited to the family videos library.",
            dict(source="discord"),
        ),
        (
            "wk-prof-perf-review",
            "Prepare notes for my mid-year review.",
            "Highlights: shipped usage-based pricing in billing-svc, cut invoice run time from 40 to 9 minutes, mentored the new hire. Growth area: more design docs before coding.",
            "40 to 9 minutes",
            "Work profile: notes for a mid-year review, highlighting usage-based pricing and a much faster invoice run.",
            dict(profile="work"),
        ),
        (
            "wk-prof-pagerduty",
            "Set up my PagerDuty notifications so I'm not woken for low urgency.",
            "High urgency: push and phone call after 5 minutes; low urgency: email only, and only during working hours. Your rotation is 'billing-primary'.",
            "billing-primary",
            "Work profile: PagerDuty notification rules were set so low-urgency incidents only email during working hours.",
            dict(profile="work"),
        ),
        (
            "wk-prof-conference",
            "Draft the conference talk proposal about our ledger.",
            "Title: 'Double-entry for developers: how we rebuilt billing on an immutable ledger'. Abstract of 180 words, three takeaways, 30-minute slot.",
            "Double-entry for developers",
            "Work profile: a conference talk proposal about rebuilding billing on an immutable double-entry ledger.",
            dict(profile="work"),
        ),
        (
            "wk-prof-budget",
            "What's the team's cloud budget this quarter?",
            "The billing team's cloud budget is 18,500 USD for Q2, of which 11,200 is already committed to the reserved instances.",
            "18,500 USD",
            "Work profile: the team's Q2 cloud budget and how much of it the reserved instances already take.",
            dict(profile="work"),
        ),
    ]
    for key, user, reply, fact, summary, kw in rows:
        kw.setdefault("profile", "bot")
        kw.setdefault("title", user.removeprefix("[cron] ").rstrip(".?")[:50])
        mk(cat, key, "profile", summary, [("u", user), ("a", reply)], fact=fact, **kw)


def bot_background(cat: Catalog, rng: random.Random) -> None:
    """Ordinary bot sessions: small chores, weather, timers, so the bot's common words are common."""
    chats = [
        (
            "What's the weather tomorrow?",
            "Mild, 14 degrees, light rain in the afternoon; take an umbrella for the school run.",
        ),
        ("Set a timer for the pasta, 9 minutes.", "Timer set: 9 minutes."),
        (
            "Add milk, eggs and coffee to the shopping list.",
            "Added milk, eggs and coffee to the shopping list.",
        ),
        ("Turn off all the lights downstairs.", "All downstairs lights are off."),
        (
            "What's on the family calendar today?",
            "Nothing special today apart from the usual swimming lesson.",
        ),
        ("Remind me to water the plants on Sunday.", "Reminder set for Sunday at 10:00."),
        ("How long to the airport by car at 7am?", "About 35 minutes at that time."),
        ("Is the dishwasher done?", "Yes, it finished 20 minutes ago."),
        ("Play some jazz in the living room.", "Playing a jazz playlist on the living room speaker."),
        ("Convert 250 grams of flour to cups.", "About 2 cups of all-purpose flour."),
    ]
    for i in range(24):
        prompt, reply = chats[i % len(chats)]
        source = "telegram" if i % 3 else "discord"
        mk(cat, f"botbg-{i}", None, "", [("u", prompt), ("a", reply)], profile="bot", source=source)
    for week in range(0, 24, 4):
        s = cat.s(
            f"botbg-cron-{week}",
            profile="bot",
            source="cron",
            job="a9c1e3f5b7d2",
            title="Home server check",
            day=week * 7 + rng.randrange(7),
        )
        s.u("[cron] Check the home server's containers.")
        s.sh(
            "docker ps --format '{{.Names}} {{.Status}}' | head -3",
            "homeassistant Up 6 days\njellyfin Up 6 days\ncaddy Up 6 days",
        )
        s.a("All home server containers are up.")


# Memory entries: (profile, file, entry, fact, summary). Each fact is in no session.
_MEMORY: list[tuple[str | None, str, str, str, str]] = [
    (
        None,
        "MEMORY.md",
        "The webshop's local dev server runs on port 8013 (8000 is taken by the docs preview).",
        "port 8013",
        "Agent memory, default profile: the webshop's local development server uses port 8013 because another service occupies 8000.",
    ),
    (
        None,
        "MEMORY.md",
        "Infra repo: always run `make tfsec` before `terraform apply`; the pre-commit hook does not cover it.",
        "make tfsec",
        "Agent memory, default profile: in the infra repo a tfsec make target must be run before any terraform apply, since pre-commit does not check it.",
    ),
    (
        None,
        "MEMORY.md",
        "ml-pipeline datasets live on the NAS share //nas-01/datasets, mounted at /mnt/datasets via autofs.",
        "//nas-01/datasets",
        "Agent memory, default profile: the ML datasets are on a NAS share mounted at /mnt/datasets through autofs.",
    ),
    (
        None,
        "MEMORY.md",
        "Blog posts use the slug format YYYY-MM-short-title; images go in the post's page bundle, never in static/.",
        "page bundle",
        "Agent memory, default profile: blog post slug convention (year-month-title) and images kept in each post's page bundle, not in static.",
    ),
    (
        None,
        "MEMORY.md",
        "The mobile app's bundle id is com.devshop.mobile; the Apple team id is 7QX4K2M9LP.",
        "7QX4K2M9LP",
        "Agent memory, default profile: the app's bundle identifier and the Apple developer team id.",
    ),
    (
        None,
        "MEMORY.md",
        "Webshop commits follow Conventional Commits with the scope being the Django app (e.g. fix(cart): ...).",
        "Conventional Commits",
        "Agent memory, default profile: commit messages in the webshop follow Conventional Commits, scoped by Django app.",
    ),
    (
        None,
        "MEMORY.md",
        "Staging deploys are triggered by the `deploy-staging` label on a PR, not by merging.",
        "deploy-staging",
        "Agent memory, default profile: putting a specific label on a pull request is what deploys the webshop to staging.",
    ),
    (
        None,
        "MEMORY.md",
        "The laptop is a ThinkPad X1 Carbon Gen 11 running Fedora 40 with GNOME.",
        "ThinkPad X1 Carbon Gen 11",
        "Agent memory, default profile: the user's laptop model and that it runs Fedora 40 with GNOME.",
    ),
    (
        None,
        "USER.md",
        "Prefers answers with the command first and the explanation after, no preamble.",
        "command first",
        "User profile, default: wants the command up front and the explanation afterwards, no lead-in.",
    ),
    (
        None,
        "USER.md",
        "Uses British spelling in prose (colour, organise) but American in code identifiers.",
        "British spelling",
        "User profile, default: writes prose with British spelling but keeps American spelling in code.",
    ),
    (
        None,
        "USER.md",
        "Lives in Berlin (Europe/Berlin); does not want messages between 22:00 and 07:00 except outages.",
        "between 22:00 and 07:00",
        "User profile, default: based in Berlin and wants no messages at night except for outages.",
    ),
    (
        None,
        "USER.md",
        "Vegetarian since 2019; eats fish occasionally.",
        "Vegetarian since 2019",
        "User profile, default: the user is vegetarian (since 2019) though occasionally eats fish.",
    ),
    (
        None,
        "USER.md",
        "Dislikes Docker Desktop; use podman or colima on macOS machines.",
        "colima",
        "User profile, default: avoid Docker Desktop; podman or colima instead on Macs.",
    ),
    (
        None,
        "USER.md",
        "Prefers pytest style asserts over unittest classes, and tests next to the code they test.",
        "pytest style asserts",
        "User profile, default: prefers plain pytest asserts to unittest classes.",
    ),
    (
        None,
        "USER.md",
        "Name is Sam; pronouns they/them.",
        "pronouns they/them",
        "User profile, default: the user's name and pronouns.",
    ),
    (
        "work",
        "MEMORY.md",
        "billing-svc integration tests need the `docker compose -f compose.test.yml` stack with stripe-mock on port 12111.",
        "stripe-mock on port 12111",
        "Agent memory, work profile: the billing service's integration tests need a test compose stack including stripe-mock on a specific port.",
    ),
    (
        "work",
        "MEMORY.md",
        "Data platform: never run dbt with --full-refresh on fct_events in prod; it costs about 400 credits.",
        "about 400 credits",
        "Agent memory, work profile: full-refreshing the events fact model in production is forbidden because it burns roughly 400 Snowflake credits.",
    ),
    (
        "work",
        "MEMORY.md",
        "The auth gateway's feature flags live in LaunchDarkly project 'identity', environment 'prod-eu'.",
        "prod-eu",
        "Agent memory, work profile: where the auth gateway's feature flags are managed (LaunchDarkly project and environment).",
    ),
    (
        "work",
        "MEMORY.md",
        "Release branches are cut on the first Monday of each month, named release/YYYY.MM.",
        "first Monday of each month",
        "Agent memory, work profile: release branch cadence and naming at work.",
    ),
    (
        "work",
        "MEMORY.md",
        "The company VPN client is Tailscale with the exit node 'fra-exit-1' for EU-only data access.",
        "fra-exit-1",
        "Agent memory, work profile: the VPN is Tailscale and a particular exit node is required for EU-only data.",
    ),
    (
        "work",
        "MEMORY.md",
        "Go code at work must pass golangci-lint with the repo's .golangci.yml; gocritic and errorlint are enabled.",
        "errorlint",
        "Agent memory, work profile: the Go linters enabled at work beyond the defaults.",
    ),
    (
        "work",
        "MEMORY.md",
        "Jira project keys: BILL for billing, DATA for the data platform, IAM for the auth gateway.",
        "IAM for the auth gateway",
        "Agent memory, work profile: which Jira project key belongs to which team.",
    ),
    (
        "work",
        "USER.md",
        "At work the user is a senior backend engineer on the billing team, reporting into payments engineering.",
        "senior backend engineer",
        "User profile, work: the user's role and team.",
    ),
    (
        "work",
        "USER.md",
        "Wants PR descriptions with a 'Risk' and a 'Rollback' section.",
        "'Rollback' section",
        "User profile, work: pull request descriptions should contain risk and rollback sections.",
    ),
    (
        "work",
        "USER.md",
        "Works from the office on Tuesdays and Thursdays; focus time blocked 13:00-15:00 daily.",
        "focus time blocked 13:00-15:00",
        "User profile, work: office days and the daily focus-time block.",
    ),
    (
        "work",
        "USER.md",
        "Prefers Loom videos over long Slack threads for design walkthroughs.",
        "Loom videos",
        "User profile, work: likes recorded video walkthroughs instead of long chat threads.",
    ),
    (
        "work",
        "USER.md",
        "Writes SQL in lowercase with leading commas.",
        "leading commas",
        "User profile, work: SQL style preference.",
    ),
    (
        "work",
        "USER.md",
        "Time zone for meetings is Europe/Berlin, but the data team is in Lisbon (one hour behind).",
        "data team is in Lisbon",
        "User profile, work: the data team colleagues are one hour behind, in Lisbon.",
    ),
    (
        "bot",
        "MEMORY.md",
        "Home server: Proxmox host with 32 GB RAM; Docker services live in the VM 'apps' at 192.168.178.60.",
        "192.168.178.60",
        "Agent memory, bot profile: the home server layout — Proxmox with 32 GB and a Docker VM at a fixed LAN address.",
    ),
    (
        "bot",
        "MEMORY.md",
        "Backups: restic to Backblaze B2 bucket 'family-vault-eu'; the repository password is in Bitwarden under 'restic family'.",
        "family-vault-eu",
        "Agent memory, bot profile: which B2 bucket holds the restic backups and where its password is kept.",
    ),
    (
        "bot",
        "MEMORY.md",
        "Home Assistant long-lived token is stored in /srv/secrets/ha.token on the apps VM; never paste it in chat.",
        "/srv/secrets/ha.token",
        "Agent memory, bot profile: where the Home Assistant access token is stored on the server.",
    ),
    (
        "bot",
        "MEMORY.md",
        "Family calendar is the shared Nextcloud calendar 'Familie'; school dates go in with the tag #schule.",
        "#schule",
        "Agent memory, bot profile: the shared family calendar and the tag used for school dates.",
    ),
    (
        "bot",
        "MEMORY.md",
        "Grocery orders go to REWE delivery, slot preference Thursday 18-20.",
        "Thursday 18-20",
        "Agent memory, bot profile: the grocery delivery service and the preferred delivery slot.",
    ),
    (
        "bot",
        "MEMORY.md",
        "The Jellyfin admin account is 'mediaadmin'; the kids' profiles have parental rating FSK 12.",
        "FSK 12",
        "Agent memory, bot profile: the media server's admin account and the kids' parental rating limit.",
    ),
    (
        "bot",
        "MEMORY.md",
        "Household budget sheet is the Google Sheet 'Haushalt 2026', tab 'Ausgaben'.",
        "Haushalt 2026",
        "Agent memory, bot profile: where the household budget spreadsheet lives.",
    ),
    (
        "bot",
        "USER.md",
        "Family: partner Anna, kids Mia (9) and Leo (6); grandmother 'Oma' lives nearby.",
        "Mia (9) and Leo (6)",
        "User profile, bot: the family members and the children's ages.",
    ),
    (
        "bot",
        "USER.md",
        "Leo is allergic to peanuts; always flag recipes containing them.",
        "allergic to peanuts",
        "User profile, bot: one child has a peanut allergy that recipes must respect.",
    ),
    (
        "bot",
        "USER.md",
        "Prefers reminders 30 minutes ahead, and a summary of the day at 7:15.",
        "summary of the day at 7:15",
        "User profile, bot: reminder lead time and the morning summary time.",
    ),
    (
        "bot",
        "USER.md",
        "Speaks German with the family, English with the bot unless writing to others.",
        "German with the family",
        "User profile, bot: which languages the user speaks with family and with the bot.",
    ),
    (
        "bot",
        "USER.md",
        "Budget-conscious: ask before any purchase over 100 EUR.",
        "over 100 EUR",
        "User profile, bot: purchases above a threshold need confirmation first.",
    ),
    (
        "bot",
        "USER.md",
        "Prefers trains over flights for trips under 6 hours.",
        "trips under 6 hours",
        "User profile, bot: travel preference for trains over planes on shorter journeys.",
    ),
]

# Skills: (profile, category, name, description, body, fact, summary)
_SKILLS: list[tuple[str | None, str | None, str, str, str, str, str]] = [
    (
        None,
        "devops",
        "webshop-release",
        "Cut and ship a webshop release to production",
        "1. Make sure main is green in CI.\n2. Bump the version in shop/__init__.py and write the changelog entry.\n3. Tag vX.Y.Z and push the tag; the deploy workflow runs on tags.\n4. Watch the error rate dashboard for 20 minutes.\n5. If the 5xx rate exceeds 1.5%, run `make rollback TAG=<previous>`.",
        "1.5%",
        "Skill, default profile: the webshop release procedure — tag-driven deploy, watch errors for 20 minutes and roll back if 5xx exceeds a threshold.",
    ),
    (
        None,
        "devops",
        "rotate-tls-wildcard",
        "Renew and roll out the wildcard certificate",
        "1. Request the new wildcard via the DNS-01 challenge with `lego --dns cloudflare`.\n2. Upload it to the load balancer's certificate slot 'wildcard-next'.\n3. Switch the HTTPS listener, verify with openssl s_client.\n4. Delete the old certificate after 7 days.",
        "wildcard-next",
        "Skill, default profile: how to renew the wildcard TLS certificate with a DNS-01 challenge and swap it on the load balancer via a staging slot.",
    ),
    (
        None,
        "mlops",
        "retrain-classifier",
        "Retrain the product photo classifier and promote it",
        "1. Pull the latest labelled data with `dvc pull data/labelled`.\n2. Train with configs/train/resnet50_finetune.yaml.\n3. Promote only if val top-1 beats the current model by at least 0.5 points.\n4. Export to ONNX with opset 17 and upload to the model bucket.",
        "opset 17",
        "Skill, default profile: retraining and promoting the photo classifier — promotion threshold and ONNX export settings.",
    ),
    (
        None,
        None,
        "blog-publish",
        "Publish a blog post",
        "1. Set draft: false and check the date.\n2. Run `hugo --minify` and the link checker.\n3. Push to main; the pages workflow deploys.\n4. Post the link to Mastodon with the hashtag #devnotes.",
        "#devnotes",
        "Skill, default profile: the steps to publish a blog post, including the social hashtag used when announcing it.",
    ),
    (
        "work",
        "billing",
        "invoice-rerun",
        "Re-run a failed monthly invoice batch safely",
        "1. Find the batch id in the `invoice_runs` table with status 'failed'.\n2. Run `billingctl invoices rerun --batch <id> --dry-run` and compare totals.\n3. Rerun without --dry-run; it skips invoices already finalized.\n4. Post the summary in #billing-ops.",
        "billingctl invoices rerun",
        "Skill, work profile: safely re-running a failed monthly invoice batch with a dry run first and a report to the ops channel.",
    ),
    (
        "work",
        "data",
        "backfill-dbt-model",
        "Backfill an incremental dbt model over a date range",
        "1. Use the TRANSFORM_WH warehouse resized to LARGE only for the backfill.\n2. Run `dbt run -s <model> --vars '{start: 2026-01-01, end: 2026-02-01}'` month by month.\n3. Check row counts against the source after each month.\n4. Resize the warehouse back afterwards.",
        "month by month",
        "Skill, work profile: backfilling an incremental dbt model one month at a time with row-count checks and a temporary warehouse resize.",
    ),
    (
        "work",
        None,
        "oncall-handover",
        "Write the weekly on-call handover",
        "1. List incidents from PagerDuty for the week.\n2. For each: impact, root cause, follow-up ticket.\n3. Note noisy alerts to tune.\n4. Post in #oncall-handover by Monday 11:00.",
        "Monday 11:00",
        "Skill, work profile: the weekly on-call handover note and its Monday deadline.",
    ),
    (
        "bot",
        "home",
        "restore-from-restic",
        "Restore files from the family restic backup",
        "1. On the apps VM, export the B2 credentials from Bitwarden.\n2. `restic snapshots --path /srv/photos` to find the snapshot.\n3. Restore into /srv/restore-tmp first, never in place.\n4. Check the files, then move them back and delete restore-tmp.",
        "/srv/restore-tmp",
        "Skill, bot profile: restoring family files from restic into a temporary directory first, never in place.",
    ),
    (
        "bot",
        "home",
        "add-ha-device",
        "Add a new Zigbee device to Home Assistant",
        "1. Open Zigbee2MQTT and enable pairing for 254 seconds.\n2. Reset the device (hold its button 5 s).\n3. Rename it as <room>_<type>, e.g. kitchen_motion.\n4. Add it to the right area and to the 'battery check' group if it has a battery.",
        "254 seconds",
        "Skill, bot profile: pairing a new Zigbee device through Zigbee2MQTT, with the naming convention room_type.",
    ),
    (
        "bot",
        None,
        "weekly-meal-plan",
        "Plan the family's meals for the week",
        "1. Check the calendar for busy evenings (quick meals then).\n2. Pick 5 dinners, at most one with meat, none with peanuts.\n3. Build the shopping list grouped by store section.\n4. Send the plan to the family chat on Sunday at 17:00.",
        "Sunday at 17:00",
        "Skill, bot profile: how the weekly family meal plan is made (five dinners, peanut-free) and when it is sent.",
    ),
]


def notes(cat: Catalog) -> None:
    for profile, name, entry, fact, summary in _MEMORY:
        cat.memory(profile, name, entry, summary, fact)
    for profile, category, name, description, body, fact, summary in _SKILLS:
        cat.skill(profile, name, description, body, summary, fact, category=category)
