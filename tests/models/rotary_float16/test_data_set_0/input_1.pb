
B	cos_cacheJ0«»T¥F6™(¥ºX6v8H8Þ/9»5h°P·‚»qµ¡5W<8º´Ò»Oµî¶h9