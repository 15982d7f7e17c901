from svmlab.cli import main

raise SystemExit(main())
