"""Runs AWS CLI (v1) commands one after another in this one Python process, for AwsCli.java.

Each command is what the `aws` script runs, awscli.clidriver's driver with the command's arguments, so the parsing,
signing, retries and printing are the CLI's own; only the interpreter's start and the imports are paid once instead of
per command (about 0.7 s of CPU each on the two-core CI machine, and the suite runs the CLI about 160 times).

Protocol, a JSON object per line each way. In: {"args": [...], "env": {...}, "stdout": PATH, "stderr": PATH}; the
command's AWS_* environment replaces this process's, its output goes to the two files and its stdin is empty. Out:
"@@aws-cli-runner {"status": N}", the exit status `aws` would have had, after a marker: nothing the CLI might
print to the original stdout is taken for an answer.
"""

import json
import logging
import os
import sys
import traceback

import awscli.clidriver

# what importing the CLI put in the environment (AWS_DATA_PATH, its models), as in every `aws` process
IMPORTED_ENV = {k: v for k, v in os.environ.items() if k.startswith("AWS_")}


def reset_logging():
    # --debug adds a stream handler to the root logger on each run; later runs must not write to an earlier one's file
    for name in [None] + list(logging.root.manager.loggerDict):
        logger = logging.getLogger(name)
        if isinstance(logger, logging.Logger):
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
            logger.setLevel(logging.NOTSET if name else logging.WARNING)


def run(request):
    for key in [k for k in os.environ if k.startswith("AWS_")]:
        del os.environ[key]
    os.environ.update(IMPORTED_ENV)
    os.environ.update(request["env"])
    saved = sys.stdin, sys.stdout, sys.stderr
    with open(os.devnull, "r") as stdin, \
            open(request["stdout"], "w", encoding="utf-8") as stdout, \
            open(request["stderr"], "w", encoding="utf-8") as stderr:
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        try:
            status = awscli.clidriver.create_clidriver().main(request["args"])
        except SystemExit as e:  # argparse and a few commands exit instead of returning
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 255)
        except BaseException:
            traceback.print_exc()
            status = 255
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            sys.stdin, sys.stdout, sys.stderr = saved
            reset_logging()
    return 0 if status is None else status


def main():
    reply = sys.stdout
    for line in sys.stdin:
        if line.strip():
            reply.write("@@aws-cli-runner " + json.dumps({"status": run(json.loads(line))}) + "\n")
            reply.flush()


if __name__ == "__main__":
    main()
