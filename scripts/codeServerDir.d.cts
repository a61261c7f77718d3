export declare const version: string;
export declare const dir: string;
