"""`stickgen serve`: the local web studio and its JSON API (docs/serve.md).

One process holds the model, answers the API and serves its own page; it sits on top of the library
beside the CLI, and nothing below imports it.

- `studio.py`: the request rules (the CLI's, checked before any work), the model and text encoder
  held in memory, and one generation at a time behind a bounded queue;
- `results.py`: the result files, in a temporary folder capped in count and size;
- `app.py`: the FastAPI app: the page, the API, and every error as one sentence;
- `server.py`: start-up (the extra, the port, the model), uvicorn, and the clean shutdown;
- `static/`: the page, plain HTML, CSS and JavaScript served by the app (nothing from a CDN).

FastAPI and uvicorn come with the optional extra: `pip install "stickgen[serve]"`.
"""
